// read_megatron_arguments: a Megatron-LM argument list (megatron_import.hpp).

#include <algorithm>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/import/megatron_import.hpp"
#include "sim/scenario/megatron_names.hpp"

namespace trainsim {

namespace {

bool is_option(const std::string& token) {
  return token.size() > 2 && token.starts_with("--");
}

// The words of an argument file: `\` line ends join lines, `#` lines are comments, single or
// double quotes keep spaces in a word (as a shell script holding the list would).
std::vector<std::string> file_words(const std::string& path) {
  const std::string text =
      read_input_file(path, {"the argument file", "cannot open the argument file", k_max_megatron_input_bytes});
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  bool line_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
      continue;
    }
    if (line_start && c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      while (i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      if (c == '\n') line_start = true;
      continue;
    }
    if (line_start && c != ' ' && c != '\t') line_start = false;
    in_word = true;
    if (c == '\'' || c == '"')
      quote = c;
    else
      word += c;
  }
  if (quote) throw InputError(path, "", std::string(1, quote), "a quote is not closed");
  if (in_word) words.push_back(word);
  return words;
}

std::string dashes_to_underscores(std::string text) {
  std::replace(text.begin(), text.end(), '-', '_');
  return text;
}

}  // namespace

MegatronInput read_megatron_arguments(const std::vector<std::string>& args) {
  MegatronInput input;
  input.arguments = true;
  input.origin = "the arguments";
  std::vector<std::string> words;
  for (const std::string& a : args) {
    if (a.size() > 1 && a.starts_with("@")) {
      const std::vector<std::string> more = file_words(a.substr(1));
      words.insert(words.end(), more.begin(), more.end());
      if (args.size() == 1) input.origin = a.substr(1);
    } else {
      words.push_back(a);
    }
  }
  if (words.empty()) throw InputError("", "ARGS", "", "expected Megatron-LM's arguments (--name value ...) or @FILE");
  std::size_t i = 0;
  // A launcher and its script before the arguments (python pretrain_gpt.py, torchrun
  // --nproc-per-node 8 pretrain_gpt.py): up to the first word naming a .py file, listed.
  const auto script = std::find_if(words.begin(), words.end(), [](const std::string& w) { return w.ends_with(".py"); });
  if (!words.empty() && !is_option(words[0]) && script != words.end())
    i = static_cast<std::size_t>(script - words.begin()) + 1;
  std::string launcher;
  for (std::size_t w = 0; w < i; ++w) launcher += (w ? " " : "") + words[w];
  while (i < words.size() && !is_option(words[i])) launcher += (launcher.empty() ? "" : " ") + words[i++];
  if (!launcher.empty()) input.not_modelled.push_back(launcher + " (the launcher)");
  while (i < words.size()) {
    const std::string& word = words[i++];
    if (!is_option(word))
      throw InputError(input.origin, word, "", "expected an argument --name (a value follows its argument)");
    const auto eq = word.find('=');
    const std::string written_name = word.substr(0, eq);
    const std::string name = dashes_to_underscores(written_name.substr(2));
    std::vector<std::string> values;
    if (eq != std::string::npos) values.push_back(word.substr(eq + 1));
    while (eq == std::string::npos && i < words.size() && !is_option(words[i])) values.push_back(words[i++]);
    std::string joined;
    for (const std::string& v : values) joined += (joined.empty() ? "" : ",") + v;
    std::string written = written_name;
    for (const std::string& v : values) written += " " + v;
    const MegatronName* row = megatron_argument(name);
    if (!row) {
      input.not_modelled.push_back(written);
      continue;
    }
    if (row->takes == MegatronTakes::flag) {
      if (!values.empty()) throw InputError(input.origin, written_name, joined, "is a switch: it takes no value");
      input.settings.push_back({name, "true", written});
      continue;
    }
    if (values.empty()) throw InputError(input.origin, written_name, "", "needs a value");
    input.settings.push_back({name, joined, written});
  }
  return input;
}

}  // namespace trainsim
