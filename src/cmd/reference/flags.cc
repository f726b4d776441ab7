#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cmd/reference/reference.h"

namespace nodewright::cmd::reference {
namespace {

std::string commandPath(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* p = app.get_parent(); p != nullptr; p = p->get_parent()) {
    path = p->get_name() + " " + path;
  }
  return path;
}

// "-f, --filename" for flags; the positional's name for arguments.
std::string optionNames(const CLI::Option& opt) {
  if (!opt.nonpositional()) {
    return opt.get_name(true);
  }
  std::vector<std::string> names;
  for (const std::string& s : opt.get_snames()) {
    names.push_back("-" + s);
  }
  for (const std::string& l : opt.get_lnames()) {
    names.push_back("--" + l);
  }
  std::string out;
  for (const std::string& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

std::string code(const std::string& text) {
  return text.empty() ? "" : "`" + text + "`";
}

std::string optionType(const CLI::Option& opt) {
  if (opt.get_expected_max() == 0) {
    return "flag";
  }
  std::string type = opt.get_type_name();
  if (opt.get_expected_max() > 1) {
    type += " ...";
  }
  return type;
}

// CLI11 shows a bound variable that is empty or a false flag as "" / "false" / "[]"; all three
// mean "not set", which the table shows as an empty cell.
std::string optionDefault(CLI::Option& opt) {
  opt.capture_default_str();
  const std::string d = opt.get_default_str();
  if (d.empty() || d == "[]" || (opt.get_expected_max() == 0 && d == "false")) {
    return "";
  }
  return code(d);
}

std::string description(const CLI::Option& opt) {
  std::string text = opt.get_description();
  if (opt.get_required()) {
    text = "Required. " + text;
  }
  if (!opt.get_envname().empty() && text.find(opt.get_envname()) == std::string::npos) {
    text += " (env `" + opt.get_envname() + "`)";
  }
  return cell(text);
}

std::vector<CLI::App*> sortedSubcommands(CLI::App& app) {
  // A hidden command (no group: an alias kept out of --help) stays out here too.
  std::vector<CLI::App*> subs =
      app.get_subcommands([](CLI::App* sub) { return !sub->get_group().empty(); });
  std::sort(subs.begin(), subs.end(),
            [](const CLI::App* a, const CLI::App* b) { return a->get_name() < b->get_name(); });
  return subs;
}

void writeCommand(CLI::App& app, std::ostream& out) {
  const std::string path = commandPath(app);
  out << "## " << path << "\n\n" << app.get_description() << "\n\n";
  if (!app.get_aliases().empty()) {
    out << "Also called: ";
    for (size_t i = 0; i < app.get_aliases().size(); ++i) {
      out << (i == 0 ? "" : ", ") << "`" << app.get_aliases()[i] << "`";
    }
    out << ".\n\n";
  }
  std::vector<CLI::App*> subs = sortedSubcommands(app);
  // Hidden options (no group) stay out, as they do from --help; so does --help itself, which
  // every command has.
  std::vector<CLI::Option*> options = app.get_options([&](CLI::Option* o) {
    return o != app.get_help_ptr() && o != app.get_help_all_ptr() && !o->get_group().empty();
  });
  if (!subs.empty()) {
    out << "Commands: ";
    for (size_t i = 0; i < subs.size(); ++i) {
      out << (i == 0 ? "" : ", ") << "`" << subs[i]->get_name() << "`";
    }
    out << ".\n\n";
  }
  if (app.get_allow_extras() && options.empty() && subs.empty()) {
    out << "Accepts any arguments.\n\n";
  }
  if (!options.empty()) {
    out << "| flag | type | default | description |\n| --- | --- | --- | --- |\n";
    for (CLI::Option* opt : options) {
      out << "| " << code(optionNames(*opt)) << " | " << cell(optionType(*opt)) << " | "
          << optionDefault(*opt) << " | " << description(*opt) << " |\n";
    }
    out << "\n";
  }
  for (CLI::App* sub : subs) {
    writeCommand(*sub, out);
  }
}

}  // namespace

std::string flagsMarkdown(CLI::App& root) {
  std::ostringstream out;
  out << kGeneratedHeader << "\n# Command-line reference\n\n"
      << "Every command and flag of `" << root.get_name()
      << "`. Flags of `nodewright` itself go before the command "
         "(`nodewright --log-level debug up`); every command also takes `-h, --help`.\n\n";
  writeCommand(root, out);
  std::string text = out.str();
  text.pop_back();  // one newline at the end, not a blank line
  return text;
}

}  // namespace nodewright::cmd::reference
