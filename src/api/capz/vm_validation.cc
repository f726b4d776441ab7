#include <regex>
#include <set>

#include "api/capz/vm.h"

// Rules of the CAPZ machine webhooks that span several VM fields.
namespace nodewright::api::capz {
namespace {

std::optional<std::string> decodeBase64(const std::string& text) {
  static const std::string alphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if (text.empty() || text.size() % 4 != 0) {
    return std::nullopt;
  }
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  size_t padding = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '=') {
      // Padding only at the very end, at most two characters.
      if (i + 2 < text.size() || ++padding > 2) {
        return std::nullopt;
      }
      continue;
    }
    size_t v = alphabet.find(c);
    if (v == std::string::npos || padding > 0) {
      return std::nullopt;
    }
    buffer = (buffer << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

bool isGuid(const std::string& text) {
  static const std::regex re(
      R"(^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$)");
  return std::regex_match(text, re);
}

}  // namespace

void defaultDataDisks(std::vector<DataDisk>& disks) {
  std::set<int32_t> used;
  for (const DataDisk& d : disks) {
    if (d.lun) {
      used.insert(*d.lun);
    }
  }
  for (DataDisk& d : disks) {
    if (d.lun) {
      continue;
    }
    int32_t lun = 0;
    while (used.count(lun) > 0) {
      ++lun;
    }
    d.lun = lun;
    used.insert(lun);
  }
}

void validateDataDisks(const std::vector<DataDisk>& disks, const FieldPath& path,
                       FieldErrors& errors) {
  std::set<std::string> names;
  std::set<int32_t> luns;
  for (size_t i = 0; i < disks.size(); ++i) {
    const DataDisk& d = disks[i];
    if (!d.nameSuffix.empty() && !names.insert(d.nameSuffix).second) {
      errors.push_back(
          {path.index(i).child("nameSuffix").str(), fielderr::duplicate(Json(d.nameSuffix))});
    }
    if (d.lun && !luns.insert(*d.lun).second) {
      errors.push_back({path.index(i).child("lun").str(), fielderr::duplicate(Json(*d.lun))});
    }
  }
}

void validateSSHPublicKey(const std::string& key, const FieldPath& path, FieldErrors& errors) {
  if (key.empty()) {
    return;
  }
  std::optional<std::string> decoded = decodeBase64(key);
  if (!decoded) {
    errors.push_back({path.str(), fielderr::invalid(Json(key),
                                                    "the SSH public key is not properly "
                                                    "base64 encoded")});
    return;
  }
  // An authorized_keys line: "<algorithm> <base64 blob> [comment]".
  static const std::regex line(
      R"(^(ssh-(rsa|dss|ed25519)|ecdsa-sha2-nistp(256|384|521)|sk-(ssh-ed25519|ecdsa-sha2-nistp256)@openssh\.com) [A-Za-z0-9+/]+={0,2}( [^\n]*)?\n?$)");
  if (!std::regex_match(*decoded, line)) {
    errors.push_back({path.str(), fielderr::invalid(Json(key), "the SSH public key is not valid")});
  }
}

void validateIdentity(const std::string& identity, const std::string& roleAssignmentName,
                      const std::optional<SystemAssignedIdentityRole>& role,
                      const std::vector<UserAssignedIdentity>& userAssigned, const FieldPath& spec,
                      FieldErrors& errors) {
  if (identity == "SystemAssigned") {
    if (!roleAssignmentName.empty() && !isGuid(roleAssignmentName)) {
      errors.push_back({spec.child("roleAssignmentName").str(),
                        fielderr::invalid(Json(roleAssignmentName),
                                          "Role assignment name must be a valid GUID. It is "
                                          "optional and will be auto-generated when not "
                                          "specified.")});
    }
    if (role && !role->name.empty() && !isGuid(role->name)) {
      errors.push_back({spec.child("systemAssignedIdentityRole").child("name").str(),
                        fielderr::invalid(Json(role->name),
                                          "Role assignment name must be a valid GUID. It is "
                                          "optional and will be auto-generated when not "
                                          "specified.")});
    }
    if (!roleAssignmentName.empty() && role && !role->name.empty()) {
      errors.push_back({spec.child("roleAssignmentName").str(),
                        fielderr::forbidden("cannot be set together with "
                                            "systemAssignedIdentityRole.name")});
    }
  } else {
    if (!roleAssignmentName.empty()) {
      errors.push_back({spec.child("roleAssignmentName").str(),
                        fielderr::forbidden("Role assignment name should only be set when using "
                                            "system assigned identity.")});
    }
    if (role) {
      errors.push_back({spec.child("systemAssignedIdentityRole").str(),
                        fielderr::forbidden("systemAssignedIdentityRole can only be set when "
                                            "identity is set to 'SystemAssigned'")});
    }
  }
  if (identity == "UserAssigned" && userAssigned.empty()) {
    errors.push_back(
        {spec.child("userAssignedIdentities").str(),
         fielderr::required() + ": must be specified for the 'UserAssigned' identity type"});
  }
}

void validateNetworkInterfaces(const std::string& subnetName,
                               const std::optional<bool>& acceleratedNetworking,
                               const std::vector<NetworkInterface>& nics, const FieldPath& spec,
                               FieldErrors& errors) {
  FieldPath path = spec.child("networkInterfaces");
  if (!nics.empty() && (!subnetName.empty() || acceleratedNetworking.has_value())) {
    errors.push_back({path.str(), fielderr::forbidden("cannot be set together with the deprecated "
                                                      "subnetName or acceleratedNetworking")});
  }
  if (nics.size() > 1) {
    for (size_t i = 0; i < nics.size(); ++i) {
      if (nics[i].subnetName.empty()) {
        errors.push_back({path.index(i).child("subnetName").str(),
                          fielderr::required() +
                              ": subnetName must be set when using multiple network interfaces"});
      }
    }
  }
}

}  // namespace nodewright::api::capz
