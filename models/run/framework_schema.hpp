#pragma once
// The framework's config sections and rules: what [run], [grid], [output], [checkpoint] and
// [boundary] hold, the rules across their keys that the schemas cannot say (steps or end_time,
// dt or cfl, one grid length per cell count), and the check of [run] model made before the
// model's schema is known. The config reader (io/config.hpp) knows none of these names.
#include <string>
#include <vector>

#include "io/config.hpp"

namespace sim::run {

/// The framework's own sections: [run], [grid], [output], [checkpoint], [boundary] (with the
/// scalar kinds: periodic, dirichlet, neumann).
std::vector<io::Schema> framework_schemas();

/// The [boundary] section for a model that accepts `kinds` (default_kind on faces not set), a
/// face's value meaning value_doc ("value (dirichlet) or outward gradient (neumann)"), with
/// the faces of the first `rank` dimensions (x, y, z).
io::Schema boundary_schema(const std::vector<std::string>& kinds, const std::string& default_kind,
                           const std::string& value_doc, int rank = 3);

/// Cross-field rules of the framework sections, checked after validate(): exactly one of
/// run.steps / run.end_time set; not both run.dt and run.cfl set; run.dt > 0 when set;
/// grid.length and grid.origin (when set) have as many entries as grid.cells.
void check_framework_rules(const io::Config& c);

/// Checks run.model before validate() (the model decides which schema applies): present, a
/// string, and one of `registered`; the ConfigError lists the registered names and suggests
/// the nearest. When [run] model is missing because the [run] header is misspelt ([runzz]),
/// the error names that section, where it is, and suggests [run].
void check_model_name(const io::Config& c, const std::vector<std::string>& registered);

}  // namespace sim::run
