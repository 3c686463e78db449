#pragma once
// "Did you mean ...?" for unknown keys: the candidate with the smallest edit distance.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainsim {

/// Levenshtein distance between two strings (insert, delete, substitute: cost 1 each).
size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `name`, if one is close enough to be a plausible typo
/// (distance at most max(2, |name|/3)). Ties go to the earlier candidate.
std::optional<std::string> nearest_name(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace trainsim
