#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

// The api-version each ARM request carries, per resource type. The versions are those of the
// Azure SDK for Go modules CAPZ builds on (armresources v1, armnetwork/v4, armcompute/v5,
// armprivatedns v1.3, armauthorization/v2, armmsi v1.2), so our requests and responses have
// the shapes CAPZ's have.
namespace nodewright::cloud::azure {

// The fully qualified type of a resource id, as ARM spells it in "type":
//   /subscriptions/s/resourceGroups/rg                          ->
//   Microsoft.Resources/resourceGroups …/providers/Microsoft.Network/virtualNetworks/v/subnets/s ->
//   Microsoft.Network/virtualNetworks/subnets
//   …/providers/Microsoft.Compute/virtualMachines/vm/providers/Microsoft.Authorization/
//     roleAssignments/g                                         ->
//     Microsoft.Authorization/roleAssignments
// (an extension resource's type is that after the last "providers"). nullopt when `id` is not
// a resource id (no /subscriptions/ root, an odd number of type/name segments, empty parts).
// "providers" is the keyword only where a type could stand: names may be "providers".
std::optional<std::string> resourceTypeOf(std::string_view id);

// Whether `id` can go into a request URL as it is: a resource id (resourceTypeOf) in valid
// UTF-8, without whitespace, control characters, '?', '#' or '%' (which would change the URL
// or need escaping).
bool validResourceId(std::string_view id);

// "2023-04-01", or with a suffix: "2024-05-01-preview".
bool validApiVersion(std::string_view version);

// Maps lower-case resource types to api-versions; a caller's entries win over the built-ins.
using ApiVersionOverrides = std::map<std::string, std::string, std::less<>>;

// The api-version for the resource type: the type's own entry, else its namespace's default
// ("Microsoft.Network"); case-insensitive. nullopt for an unknown namespace.
std::optional<std::string> apiVersionForType(std::string_view type,
                                             const ApiVersionOverrides& overrides = {});

// apiVersionForType(resourceTypeOf(id)).
std::optional<std::string> apiVersionFor(std::string_view id,
                                         const ApiVersionOverrides& overrides = {});

}  // namespace nodewright::cloud::azure
