import HeraldCore
import Hummingbird

/// `PUT`/`DELETE` of users, projects and memberships: the backend keeps Herald's directory in step with its own.
struct DirectoryRoutes {
    let services: HeraldServices
    let maxBodySize: Int

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/users/{userId}", method: .put) { request, context in
            _ = try context.requireAdminOfEveryApp()
            let id = try context.externalID("userId")
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["email", "name"])
            let email = try body.requiredString("email")
            let name = try body.requiredString("name")
            let profile = try JSONObject.domain { () throws(DomainError) in try UserProfile(email: email, name: name) }
            let (user, created) = try await services.directory.putUser(id, profile: profile)
            return EditedResponse(status: created ? .created : .ok, response: UserResponse(user))
        }
        router.on("/api/v1/users/{userId}", method: .delete) { _, context in
            _ = try context.requireAdminOfEveryApp()
            guard try await services.directory.deleteUser(try context.externalID("userId")) else {
                throw APIError.notFound("no user has this id", field: "userId")
            }
            return Response(status: .noContent)
        }
        router.on("/api/v1/projects/{projectId}", method: .put) { request, context in
            _ = try context.requireAdminOfEveryApp()
            let id = try context.externalID("projectId")
            let body = try JSONBody.object(try await JSONBody.bytes(of: request, limit: maxBodySize))
            try body.allowOnly(["name", "ownerId"])
            let name = try body.requiredString("name")
            let owner = try body.requiredExternalID("ownerId")
            let (project, created) = try await services.directory.putProject(id, name: name, owner: owner)
            return EditedResponse(status: created ? .created : .ok, response: ProjectResponse(project))
        }
        router.on("/api/v1/projects/{projectId}", method: .delete) { _, context in
            _ = try context.requireAdminOfEveryApp()
            guard try await services.directory.deleteProject(try context.externalID("projectId")) else {
                throw APIError.notFound("no project has this id", field: "projectId")
            }
            return Response(status: .noContent)
        }
        router.on("/api/v1/projects/{projectId}/members/{userId}", method: .put) { request, context in
            _ = try context.requireAdminOfEveryApp()
            let project = try context.externalID("projectId")
            let user = try context.externalID("userId")
            let bytes = try await JSONBody.bytes(of: request, limit: maxBodySize)
            if bytes.readableBytes > 0 { try JSONBody.object(bytes).allowOnly([]) }
            let created = try await services.directory.putMember(project: project, user: user)
            return EditedResponse(
                status: created ? .created : .ok,
                response: MemberResponse(projectId: project.rawValue, userId: user.rawValue))
        }
        router.on("/api/v1/projects/{projectId}/members/{userId}", method: .delete) { _, context in
            _ = try context.requireAdminOfEveryApp()
            let removed = try await services.directory.deleteMember(
                project: try context.externalID("projectId"), user: try context.externalID("userId"))
            guard removed else { throw APIError.notFound("no such membership") }
            return Response(status: .noContent)
        }
    }
}
