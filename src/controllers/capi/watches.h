#pragma once

#include <functional>
#include <optional>
#include <string>

#include "api/meta.h"
#include "api/object.h"
#include "kube/informer.h"
#include "runtime/controller.h"

// Which owner an event of a provider object wakes. Its controller owner reference says it once
// the owner has adopted it; before that (a provider object created after the Machine that
// names it) only the owner's reference points the other way, so the owners' cache is indexed
// by the objects they reference.
namespace nodewright::controllers::capi {

// The reference an owner object makes to its provider object, if any.
using RefOf = std::function<std::optional<api::ObjectReference>(const api::Object& owner)>;

// Events of `referenced` enqueue their controller owner of kind `ownerKind` and every object of
// `owners` whose `refOf` names them. Call before manager.run().
void watchReferenced(runtime::Controller& controller, kube::Informer& owners,
                     kube::Informer& referenced, const std::string& ownerKind, RefOf refOf);

}  // namespace nodewright::controllers::capi
