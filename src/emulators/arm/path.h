#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/text.h"
#include "emulators/arm/protocol.h"
#include "emulators/arm/types.h"

// ARM resource ids and request paths. Ids are case-insensitive: the store keys on the lower-case
// id, while responses keep the type casing of the table and the name casing of the first PUT.
namespace nodewright::emulators::arm {

struct ResourcePath {
  const ResourceType* type = nullptr;
  std::string subscription;
  std::string resourceGroup;  // empty for a role assignment at subscription scope
  std::string name;           // empty for a collection
  // The canonical id ("/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/
  // virtualNetworks/v"); for a collection, the collection's path.
  std::string id;
  // The id of what it sits in: the subscription for a group, the group for a top-level type,
  // the parent resource for a child, the scope for a role assignment.
  std::string parentId;
  bool collection = false;

  std::string key() const { return core::lowerAscii(id); }
  std::string parentKey() const { return core::lowerAscii(parentId); }
  std::string groupId() const;  // "/subscriptions/s/resourceGroups/rg", or empty
};

// Parses
// /subscriptions/{sub}/resourceGroups[/{rg}[/providers/{ns}/{type}[/{name}[/{child}[/{n}]]]]] and
// /{scope}/providers/Microsoft.Authorization/roleAssignments[/{name}]. Errors are ARM's: 404
// InvalidResourceType for a type the emulator does not serve.
ArmResult<ResourcePath> parseResourcePath(std::string_view path);

// The same for a resource id found in a request body; 400 LinkedInvalidPropertyId when it is
// not a full id of a resource (`where` names the body path).
ArmResult<ResourcePath> parseReference(std::string_view id, std::string_view where);

std::vector<std::string> splitPath(std::string_view path);

}  // namespace nodewright::emulators::arm
