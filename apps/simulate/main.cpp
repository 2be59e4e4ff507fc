// simulate: the command-line front door. Thin: parse arguments, call the library.
//   simulate CONFIG.toml [section.key=value ...] [--backend B] [--resume [CKPT]] [--output DIR]
//            [--dry-run] [--print-config] [--quiet]
//   simulate info FILE.h5
//   simulate models
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <regex>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "core/runtime/context.hpp"
#include "io/hdf5_file.hpp"
#include "models/plugin.hpp"
#include "models/runner.hpp"

namespace {

std::string format_value(const sim::io::Value& v) {
  std::ostringstream s;
  std::visit(
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, bool>) s << (x ? "true" : "false");
        else if constexpr (std::is_same_v<X, std::string>) s << '"' << x << '"';
        else if constexpr (std::is_arithmetic_v<X>) s << x;
        else {
          s << '[';
          for (std::size_t i = 0; i < x.size(); ++i) {
            if (i) s << ", ";
            if constexpr (std::is_same_v<typename X::value_type, std::string>) s << '"' << x[i] << '"';
            else s << x[i];
          }
          s << ']';
        }
      },
      v);
  return s.str();
}

std::string format_range(const sim::io::Param& p) {
  if (!p.choices.empty()) {
    std::string c;
    for (auto& x : p.choices) c += (c.empty() ? "" : "|") + (x.empty() ? std::string("\"\"") : x);
    return c;
  }
  const double inf = std::numeric_limits<double>::infinity();
  if (p.type == sim::io::ParamType::string || p.type == sim::io::ParamType::boolean ||
      p.type == sim::io::ParamType::strings || (p.min == -inf && p.max == inf))
    return "";
  std::ostringstream s;
  if (p.min_excluded) {
    s << "> " << p.min;
    if (p.max != inf) s << ", <= " << p.max;
    return s.str();
  }
  s << (p.min == -inf ? "(-inf" : "[");
  if (p.min != -inf) s << p.min;
  s << ", ";
  if (p.max == inf) s << "inf)";
  else s << p.max << "]";
  return s.str();
}

/// text as a TOML basic string: quotes, backslashes and control characters escaped, so that
/// `--output 'a"b'` names the directory a"b and cannot inject TOML.
std::string toml_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') out += '\\', out += char(c);
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", unsigned(c));
      out += b;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

void print_models(const sim::ModelRegistry& registry) {
  for (const sim::ModelInfo& m : registry.all()) {
    std::printf("%s: %s\n", m.name.c_str(), m.doc.c_str());
    // columns as wide as their longest entry (a long key or default keeps the rest aligned)
    std::vector<std::array<std::string, 6>> rows = {{"[model] key", "type", "default", "range/choices", "unit", "doc"}};
    for (const sim::io::Param& p : m.schema.params)
      rows.push_back({p.name, sim::io::type_name(p.type), p.default_value ? format_value(*p.default_value) : "(required)",
                      format_range(p), p.unit, p.doc});
    std::size_t width[5] = {};
    for (const auto& r : rows)
      for (int c = 0; c < 5; ++c) width[c] = std::max(width[c], r[c].size());
    for (const auto& r : rows) {
      std::string line = " ";
      for (int c = 0; c < 5; ++c) line += " " + r[c] + std::string(width[c] - r[c].size(), ' ');
      std::printf("%s %s\n", line.c_str(), r[5].c_str());
    }
    if (m.uses_boundary) {
      std::string kinds;
      for (const std::string& k : m.boundary_kinds) kinds += (kinds.empty() ? "" : "|") + k;
      bool only_periodic = true;
      for (const std::string& k : m.boundary_kinds) only_periodic = only_periodic && k == "periodic";
      const std::string value = only_periodic || m.boundary_value_doc.empty() ? "" : "; <face>_value: " + m.boundary_value_doc;
      const char* faces = m.ranks.size() == 1 && m.ranks[0] == 1 ? "x_lo, x_hi" : "x_lo, x_hi, y_lo, ...";
      std::printf("  [boundary] %s (default: %s): %s%s\n", faces, m.boundary_default.c_str(), kinds.c_str(), value.c_str());
    }
    std::printf("\n");
  }
  std::printf("The framework sections [run], [grid], [output], [checkpoint], [boundary]: see\n"
              "`simulate CONFIG --print-config`, which prints every key with its default and doc.\n");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"simkit: run a simulation from a TOML config; write HDF5 snapshots and checkpoints", "simulate"};
  app.set_version_flag("--version", std::string("simulate (simkit) ") + SIMKIT_VERSION_STRING + ", commit " +
                                        SIMKIT_GIT_COMMIT + ", backends: cpu" + (sim::cuda_compiled() ? " cuda" : ""));
  sim::RunOptions opt;
  std::string backend, output, resume_path, info_file;
  app.add_option("config", opt.config_path, "the run's TOML config file");
  app.add_option("overrides", opt.overrides, "section.key=value overrides, validated like the file");
  app.add_option("--backend", backend, "auto (GPU when present), cuda or cpu; overrides run.backend");
  auto* resume = app.add_option("--resume", resume_path,
                                "continue from a checkpoint (default: the newest valid one in the output directory)")
                     ->expected(0, 1);
  app.add_option("--output", output, "output directory; overrides output.directory");
  app.add_flag("--accept-changes", opt.accept_changes,
               "with --resume: continue although a physical parameter ([model], [boundary], [grid], run.dt, run.cfl) "
               "differs from the checkpoint's config");
  app.add_flag("--dry-run", opt.dry_run, "validate and print the plan (model, grid, memory, steps, outputs); run nothing");
  app.add_flag("--print-config", opt.print_config, "print the fully resolved config, defaults included");
  app.add_flag("-q,--quiet", opt.quiet, "no progress or summary, errors only");
  app.add_option("--plugin", opt.plugins, "load models from this shared library (repeatable; replaces the config's [run] plugins)")->allow_extra_args(false);
  app.add_option("--stats", opt.stats_path, "write the run's summary (timings, throughput, output cost) as JSON");
  auto* info = app.add_subcommand("info", "print what a snapshot or checkpoint holds");
  info->add_option("file", info_file, "an HDF5 snapshot or checkpoint")->required();
  auto* models = app.add_subcommand("models", "list the registered models and their parameters");
  models->fallthrough();  // `simulate models --plugin X` as well as `simulate --plugin X models`
  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return sim::exit_bad_input;
  }

  sim::ModelRegistry registry = sim::builtin_models();
  if (info->parsed()) {
    try {
      std::fputs(sim::io::describe(info_file).c_str(), stdout);
      return sim::exit_ok;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "simulate info: error: %s\n", e.what());
      return sim::exit_bad_input;
    }
  }
  if (models->parsed()) {
    try {
      for (const std::string& p : opt.plugins) sim::load_plugin(p, registry);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "simulate models: error: %s\n", e.what());
      return sim::exit_bad_input;
    }
    print_models(registry);
    return sim::exit_ok;
  }
  if (opt.config_path.empty()) {
    std::fprintf(stderr, "simulate: error: no config file given\n%s", app.help().c_str());
    return sim::exit_bad_input;
  }
  if (!backend.empty()) opt.overrides.push_back("run.backend=" + backend);
  if (!output.empty()) opt.overrides.push_back("output.directory=" + toml_string(output));
  // `--resume key=value`: CLI11 gave the override to --resume as its optional path; hand it back.
  static const std::regex override_form(R"(^[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*=.*)");
  if (std::regex_match(resume_path, override_form)) {
    opt.overrides.insert(opt.overrides.begin(), resume_path);
    resume_path.clear();
  }
  if (resume->count() > 0) opt.resume = resume_path;
  return sim::run_simulation(opt, registry);
}
