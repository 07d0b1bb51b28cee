import Foundation
import Testing
import Yams

/// deploy/kubernetes: a probed, hardened Deployment of several replicas, the key Secret mounted read-only, a
/// migration Job and the objects around them.
@Suite struct KubernetesManifestTests {
    let manifests: KubernetesManifests
    let deployment: KubernetesManifests.Object
    let container: Node

    init() throws {
        manifests = try KubernetesManifests()
        deployment = try #require(manifests.one("Deployment", named: "herald"))
        container = try #require(KubernetesManifests.podSpec(of: deployment)?["containers"]?.array().first)
    }

    var podSpec: Node? { KubernetesManifests.podSpec(of: deployment) }

    /// The Deployment's, Job's and CronJob's Herald containers.
    var heraldContainers: [(owner: String, container: Node)] {
        manifests.objects.flatMap { object in
            (KubernetesManifests.podSpec(of: object)?["containers"]?.array() ?? []).map {
                ("\(object.kind) \(object.name)", $0)
            }
        }
    }

    @Test func deploymentRunsSeveralReplicasOfServe() throws {
        #expect((deployment.node["spec"]?["replicas"]?.int ?? 0) >= 2)
        #expect(container["args"]?.array().compactMap(\.string) == ["serve"])
        #expect(container["image"]?.string?.isEmpty == false)
    }

    @Test func probesAskReadyzAndHealthzOnTheContainerPort() throws {
        let port = try #require(container["ports"]?.array().first)
        let acceptedPorts = [port["name"]?.string, port["containerPort"]?.int.map(String.init)].compactMap { $0 }
        let readiness = try #require(container["readinessProbe"]?["httpGet"])
        let liveness = try #require(container["livenessProbe"]?["httpGet"])
        #expect(readiness["path"]?.string == "/readyz")
        #expect(liveness["path"]?.string == "/healthz")
        #expect(acceptedPorts.contains(readiness["port"]?.string ?? ""))
        #expect(acceptedPorts.contains(liveness["port"]?.string ?? ""))
        // Herald listens where the probes knock.
        let config = try #require(manifests.one("ConfigMap", named: "herald-config"))
        #expect((config.node["data"]?["HERALD_PORT"]?.string ?? "8080") == port["containerPort"]?.int.map(String.init))
        #expect(KubernetesManifests.environment(of: container)["HERALD_HOST"]?["value"]?.string == "0.0.0.0")
    }

    @Test func keySecretIsMountedReadOnlyAtAPNSKeyPath() throws {
        let volume = try #require(
            podSpec?["volumes"]?.array().first { $0["secret"]?["secretName"]?.string == "herald-apns-key" })
        let mount = try #require(
            container["volumeMounts"]?.array().first { $0["name"]?.string == volume["name"]?.string })
        #expect(mount["readOnly"]?.bool == true)
        let mountPath = try #require(mount["mountPath"]?.string)
        let keyPath = try #require(KubernetesManifests.environment(of: container)["APNS_KEY_PATH"]?["value"]?.string)
        #expect(keyPath.hasPrefix(mountPath + "/"))
        let secret = try #require(manifests.one("Secret", named: "herald-apns-key"))
        let keys = secret.node["stringData"]?.mapping?.keys.compactMap(\.string) ?? []
        #expect(keys.contains(String(keyPath.dropFirst(mountPath.count + 1))))
    }

    @Test func everyHeraldContainerIsHardened() throws {
        #expect(heraldContainers.count >= 3)
        for (owner, container) in heraldContainers {
            let context = container["securityContext"]
            #expect(context?["runAsNonRoot"]?.bool == true, "\(owner)")
            #expect(context?["readOnlyRootFilesystem"]?.bool == true, "\(owner)")
            #expect(context?["allowPrivilegeEscalation"]?.bool == false, "\(owner)")
            #expect(context?["capabilities"]?["drop"]?.array().compactMap(\.string) == ["ALL"], "\(owner)")
            #expect(container["resources"]?["requests"] != nil && container["resources"]?["limits"] != nil, "\(owner)")
            #expect(container["image"]?.string == self.container["image"]?.string, "\(owner): one image for all")
        }
    }

    @Test func podsStopGracefully() throws {
        let grace = try #require(podSpec?["terminationGracePeriodSeconds"]?.int)
        #expect(ShutdownBudget.covers(seconds: grace))
    }

    @Test func migrationJobRunsMigrateUpOnce() throws {
        let job = try #require(manifests.one("Job", named: "herald-migrate"))
        #expect(job.node["spec"]?["backoffLimit"]?.int != nil)
        let spec = try #require(KubernetesManifests.podSpec(of: job))
        #expect(spec["restartPolicy"]?.string == "Never")
        #expect(spec["containers"]?.array().first?["args"]?.array().compactMap(\.string) == ["migrate", "up"])
    }

    @Test func databaseURLComesFromTheSecret() throws {
        let secret = try #require(manifests.one("Secret", named: "herald-database"))
        #expect(secret.node["stringData"]?["DATABASE_URL"] != nil)
        for (owner, container) in heraldContainers {
            let reference = KubernetesManifests.environment(of: container)["DATABASE_URL"]?["valueFrom"]?[
                "secretKeyRef"]
            #expect(reference?["name"]?.string == "herald-database", "\(owner)")
            #expect(reference?["key"]?.string == "DATABASE_URL", "\(owner)")
        }
    }

    /// Secrets in the repository hold only marked placeholders, never a real value.
    @Test func secretsArePlaceholders() throws {
        for secret in manifests.all("Secret") {
            for value in secret.node["stringData"]?.mapping.map({ Array($0.values) }) ?? [] {
                #expect(value.string?.contains("REPLACE-ME") == true, "\(secret.name)")
            }
        }
    }

    @Test func serviceAndBudgetSelectTheDeploymentsPods() throws {
        let labels = deployment.node["spec"]?["template"]?["metadata"]?["labels"]
        let service = try #require(manifests.one("Service", named: "herald"))
        #expect(service.node["spec"]?["selector"] == labels)
        #expect(service.node["spec"]?["ports"]?.array().first?["targetPort"]?.string == "http")
        let budget = try #require(manifests.all("PodDisruptionBudget").first)
        #expect(budget.node["spec"]?["selector"]?["matchLabels"] == labels)
    }

    @Test func everyObjectIsInHeraldsNamespace() {
        for object in manifests.objects where !["Namespace", "Kustomization"].contains(object.kind) {
            #expect(object.node["metadata"]?["namespace"]?.string == "herald", "\(object.file): \(object.name)")
        }
    }

    /// The files `kubectl apply -k` applies.
    var kustomized: Set<String> {
        get throws {
            let kustomization = try #require(manifests.all("Kustomization").first)
            return Set(kustomization.node["resources"]?.array().compactMap(\.string) ?? [])
        }
    }

    /// `kubectl apply -k` applies every file but the Secrets, created once beforehand, and the migration Job, which
    /// runs first on each upgrade.
    @Test func kustomizationListsEveryManifestButTheSecretsAndTheJob() throws {
        let excluded: Set<String> = ["Kustomization", "Secret", "Job"]
        let files = Set(manifests.objects.filter { !excluded.contains($0.kind) }.map(\.file))
        #expect(try kustomized == files)
    }

    /// Applying the kustomization must never overwrite the real Secrets with the placeholders in secret.yaml.
    @Test func kustomizationLeavesTheSecretsOut() throws {
        let secretFiles = Set(manifests.all("Secret").map(\.file))
        #expect(secretFiles == ["secret.yaml"])
        #expect(try kustomized.isDisjoint(with: secretFiles))
        let names = Set(manifests.all("Secret").map(\.name))
        #expect(names == ["herald-database", "herald-apns-key", "herald-user-tokens"])
    }

    @Test func namesOnlyVariablesHeraldReads() throws {
        var names: Set<String> = []
        for (_, container) in heraldContainers { names.formUnion(KubernetesManifests.environment(of: container).keys) }
        let config = try #require(manifests.one("ConfigMap", named: "herald-config"))
        names.formUnion(config.node["data"]?.mapping?.keys.compactMap(\.string) ?? [])
        let unknown = try HeraldVariables.unknown(names)
        #expect(unknown.isEmpty, "not read by Herald or not in \(HeraldVariables.referencePage): \(unknown)")
    }

    @Test func commandsAreOnesHeraldAccepts() async throws {
        for (owner, container) in heraldContainers {
            let arguments = container["args"]?.array().compactMap(\.string) ?? []
            let outcome = try await HeraldInvocation.run(arguments)
            #expect(outcome.reachedDatabase, "\(owner) \(arguments): \(outcome.output)")
        }
    }
}
