import Yams

/// Every object in deploy/kubernetes, read from all its YAML files.
struct KubernetesManifests {
    struct Object {
        let file: String
        let node: Node

        var kind: String { node["kind"]?.string ?? "" }
        var name: String { node["metadata"]?["name"]?.string ?? "" }
    }

    let objects: [Object]

    init() throws {
        var objects: [Object] = []
        for file in try RepositoryFiles.files(in: "deploy/kubernetes", endingWith: ".yaml") {
            for node in try RepositoryFiles.yamlDocuments("deploy/kubernetes/\(file)") {
                objects.append(Object(file: file, node: node))
            }
        }
        self.objects = objects
    }

    func all(_ kind: String) -> [Object] { objects.filter { $0.kind == kind } }

    func one(_ kind: String, named name: String) -> Object? {
        objects.first { $0.kind == kind && $0.name == name }
    }

    /// The pod template of a Deployment, Job or CronJob.
    static func podSpec(of object: Object) -> Node? {
        switch object.kind {
        case "CronJob": object.node["spec"]?["jobTemplate"]?["spec"]?["template"]?["spec"]
        default: object.node["spec"]?["template"]?["spec"]
        }
    }

    /// An environment list's entries by name.
    static func environment(of container: Node) -> [String: Node] {
        var entries: [String: Node] = [:]
        for entry in container["env"]?.array() ?? [] {
            if let name = entry["name"]?.string { entries[name] = entry }
        }
        return entries
    }
}
