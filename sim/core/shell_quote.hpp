#pragma once
// A word quoted for a POSIX shell (sh, bash, zsh), for text trainsim prints for a user to
// paste or writes into a script: the shell reads back exactly the word, whatever it holds
// (spaces, quotes, $(...), backticks, globs), and runs nothing from it.

#include <string>

namespace trainsim {

/// `word` as one shell word. Unchanged when every character is one no shell treats
/// specially (letters, digits and _ - . / , : @ % +; not =, which zsh expands at a word's
/// start), so a plain path stays readable; otherwise in single quotes, each ' written as
/// '\'' (POSIX.1-2017, Shell Command Language, 2.2.3: inside single quotes nothing is
/// special but the closing quote, a newline included).
std::string shell_quoted(const std::string& word);

/// A path as one shell word that no command reads as an option: a relative path starting with
/// '-' gets "./" before it, then shell_quoted. `trainsim run --chakra-out -x` printed
/// "trainsim replay -x/step", which replay refused as an unknown option.
std::string shell_quoted_path(const std::string& path);

}  // namespace trainsim
