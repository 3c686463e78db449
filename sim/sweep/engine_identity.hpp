#pragma once
// What computed a sweep's points, beyond their scenario files and overrides: the trainsim
// executable and the data folder it reads its calibration tables and presets from
// (core/data_folder.hpp). A point is reused on a rerun only when its fingerprint matches
// (sweep_plan.hpp), and the fingerprint holds this identity, so an overnight sweep resumed
// after an upgrade, a rebuild with a changed model, or an edited calibration table or preset
// recomputes its points rather than mixing two models' results in one table. Content only: the
// same binary and data copied anywhere give the same identity (README.md, "Install").
//
// Not covered: a file of one's own that a scenario names by path (`cluster.preset = my.ini`,
// `cluster.calibration = my.csv`, `model.from = config.json`); its edits are not seen.

#include <string>

namespace trainsim::sweep {

/// FNV-1a 64 (fnv1a.hpp), 16 hex digits, of this process's executable (/proc/self/exe) and of
/// the data folder's tables and presets (engine_identity(executable, data_folder)).
std::string engine_identity();

/// The same from its inputs: the bytes of `executable`, then for each `.csv`, `.ini` and
/// `.json` file under `data_folder` (links followed), in byte order of its path relative to
/// the folder, that path and the file's bytes. A file that cannot be read is hashed as its name
/// alone; an empty `data_folder` adds nothing.
std::string engine_identity(const std::string& executable, const std::string& data_folder);

}  // namespace trainsim::sweep
