#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "api/registry.h"
#include "core/time.h"

// The row printers behind server-side tables: kube-apiserver's built-in printers
// (pkg/printers/internalversion) for the kinds nodewright serves, the apiextensions table
// convertor for printer columns, and the generic NAME / CREATED AT convertor.
namespace nodewright::apiserver::table {

// metav1.TableColumnDefinition.
struct Column {
  std::string name;
  std::string type;  // string, integer, number, boolean, date
  std::string format;
  std::string description;
  int priority = 0;  // 1: shown by kubectl only with -o wide
};

struct Row {
  std::vector<api::Json> cells;  // one per column
  api::Json conditions;          // null, or metav1.TableRowCondition array
};

// Rows always carry the wide (priority 1) cells, as kube-apiserver prints with Wide: true.
struct Printer {
  std::vector<Column> columns;
  std::function<Row(const api::Json& object, core::TimePoint now)> print;
};

// ObjectMeta's swagger docs, which every kube table reuses for Name and Age.
inline constexpr std::string_view kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
inline constexpr std::string_view kCreationTimestampDescription =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"
    "api-conventions.md#metadata";

Column nameColumn();
Column ageColumn();  // "Age", type string: built-in printers render it themselves

// kube-apiserver's printer for a built-in kind, or nullptr when it has none here.
const Printer* builtinPrinter(std::string_view group, std::string_view kind);

// The apiextensions table convertor: Name, then the columns (an "Age" date column when there
// are none). Columns after one whose JSONPath does not parse are dropped, as upstream does.
Printer columnPrinter(const std::vector<api::PrinterColumn>& columns);

// rest.DefaultTableConvertor: NAME and CREATED AT (RFC 3339), used for
// CustomResourceDefinition objects.
Printer defaultPrinter();

// One printer per built-in group (defined in the *_printers.cc files).
Printer podPrinter();
Printer nodePrinter();
Printer namespacePrinter();
Printer eventPrinter();
Printer secretPrinter();
Printer configMapPrinter();
Printer leasePrinter();
Printer deploymentPrinter();
Printer replicaSetPrinter();
Printer daemonSetPrinter();
Printer podDisruptionBudgetPrinter();

// Shared cell helpers.
std::string nameOf(const api::Json& object);
std::string ageOf(const api::Json& object, core::TimePoint now);
// "a,b" names and images of the containers of a pod spec (layoutContainerCells).
void containerCells(const api::Json& podSpec, Row& row);
// metav1.FormatLabelSelector: the selector string, "<none>" when empty, "<error>" if invalid.
std::string formatLabelSelector(const api::Json* selector);
// LabelSelectorAsSelector(...).String(): "" when empty, "<invalid>" if invalid.
std::string labelSelectorString(const api::Json* selector);
// labels.FormatLabels: "k=v,..." sorted by key, "<none>" when empty.
std::string formatLabels(const api::Json* labels);

}  // namespace nodewright::apiserver::table
