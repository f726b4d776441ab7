#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/core/pod.h"
#include "api/core/pod_requests.h"
#include "cloud/instance_type.h"

// Resources as small fixed vectors of int64 milli-values, one slot per resource name seen in
// the pass, so fitting a pod is a few integer compares instead of map walks over Quantities.
namespace nodewright::controllers::provisioning::scheduling {

using Vec = std::vector<int64_t>;

inline constexpr const char* kCpu = "cpu";
inline constexpr const char* kMemory = "memory";
inline constexpr const char* kPods = "pods";
inline constexpr const char* kEphemeralStorage = "ephemeral-storage";

// Interns resource names: cpu, memory, pods and ephemeral-storage first, then the rest in the
// order seen. Not thread-safe; one per pass.
class ResourceIndex {
 public:
  static constexpr size_t kCpuSlot = 0;
  static constexpr size_t kMemorySlot = 1;
  static constexpr size_t kPodsSlot = 2;

  ResourceIndex();
  size_t slot(const std::string& name);
  void intern(const cloud::ResourceList& list);
  size_t size() const { return names_.size(); }
  const std::string& name(size_t slot) const { return names_[slot]; }

  // The list as a vector of this index's size (unknown names are interned first).
  Vec vec(const cloud::ResourceList& list);
  cloud::ResourceList list(const Vec& v) const;

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, size_t> slots_;
};

// "{cpu: 1500m, memory: 2Gi, pods: 1}", for errors.
std::string formatResources(const cloud::ResourceList& list);

// a += b, growing a to b's size.
void addTo(Vec& a, const Vec& b);
// Whether a <= b slot by slot (missing slots of b are zero).
bool fitsWithin(const Vec& a, const Vec& b);

}  // namespace nodewright::controllers::provisioning::scheduling
