#include "apiserver/table/table.h"

#include <exception>
#include <utility>

#include "apiserver/table/json_access.h"
#include "apiserver/table/printer.h"

namespace nodewright::apiserver {
namespace {

using api::Json;
using table::Printer;

// Built-in kinds print as kube-apiserver's printers do; everything else through its columns.
Printer printerFor(const Resource& resource) {
  if (!resource.custom) {
    if (const Printer* builtin = table::builtinPrinter(resource.group, resource.kind)) {
      return *builtin;
    }
  }
  return table::columnPrinter(resource.printerColumns);
}

Json columnDefinitions(const Printer& printer) {
  Json columns = Json::array();
  for (const table::Column& column : printer.columns) {
    columns.push_back(Json{{"name", column.name},
                           {"type", column.type},
                           {"format", column.format},
                           {"description", column.description},
                           {"priority", column.priority}});
  }
  return columns;
}

Json rowObject(const Json& object, const TableOptions& options) {
  switch (options.includeObject) {
    case IncludeObject::None:
      return Json();
    case IncludeObject::Object:
      return object;
    case IncludeObject::Metadata:
      break;
  }
  const Json* metadata = table::member(object, {"metadata"});
  return Json{{"kind", "PartialObjectMetadata"},
              {"apiVersion", options.apiVersion},
              {"metadata", metadata != nullptr ? *metadata : Json::object()}};
}

Json buildTable(const Printer& printer, std::span<const Json> items, Json metadata,
                core::TimePoint now, const TableOptions& options) {
  Json rows = Json::array();
  for (const Json& item : items) {
    table::Row printed = printer.print(item, now);
    Json row = Json{{"cells", std::move(printed.cells)}};
    if (printed.conditions.is_array() && !printed.conditions.empty()) {
      row["conditions"] = std::move(printed.conditions);
    }
    row["object"] = rowObject(item, options);
    rows.push_back(std::move(row));
  }
  return Json{{"kind", "Table"},
              {"apiVersion", options.apiVersion},
              {"metadata", std::move(metadata)},
              {"columnDefinitions", columnDefinitions(printer)},
              {"rows", std::move(rows)}};
}

// Objects come from storage, but a malformed one must fail the request, not the server.
template <class Fn>
core::Result<Json> guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return core::fail(core::Error::internal(std::string("building table: ") + e.what()));
  }
}

}  // namespace

core::Result<IncludeObject> parseIncludeObject(std::string_view value) {
  if (value.empty() || value == "Metadata") {
    return IncludeObject::Metadata;
  }
  if (value == "None") {
    return IncludeObject::None;
  }
  if (value == "Object") {
    return IncludeObject::Object;
  }
  return core::fail(core::Error::invalid(
      "Unable to convert to Table as requested: includeObject: Invalid value: \"" +
      std::string(value) + "\": must be 'Metadata', 'Object', 'None', or empty"));
}

core::Result<api::Json> listTable(const Resource& resource, std::span<const api::Json> items,
                                  const TableListMeta& list, core::TimePoint now,
                                  const TableOptions& options) {
  return guarded([&] {
    Json metadata = Json::object();
    if (!list.resourceVersion.empty()) {
      metadata["resourceVersion"] = list.resourceVersion;
    }
    if (!list.continueToken.empty()) {
      metadata["continue"] = list.continueToken;
    }
    if (list.remainingItemCount) {
      metadata["remainingItemCount"] = *list.remainingItemCount;
    }
    return buildTable(printerFor(resource), items, std::move(metadata), now, options);
  });
}

core::Result<api::Json> objectTable(const Resource& resource, const api::Json& object,
                                    core::TimePoint now, const TableOptions& options) {
  return guarded([&] {
    Json metadata = Json::object();
    if (std::string rv = table::stringAt(object, {"metadata", "resourceVersion"}); !rv.empty()) {
      metadata["resourceVersion"] = rv;
    }
    return buildTable(printerFor(resource), std::span<const Json>(&object, 1), std::move(metadata),
                      now, options);
  });
}

}  // namespace nodewright::apiserver
