#pragma once
// An owning HDF5 identifier, and the few HDF5 operations the trace, drill and sweep files
// share. Every failure throws trainsim::Error naming what failed and HDF5's innermost reason
// (the system's, such as "No space left on device", when HDF5 has one); HDF5 prints nothing.

#include <hdf5.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

namespace trainsim {
class AtomicOutputFile;
}

namespace trainsim::hdf5 {

/// Owns one HDF5 identifier and closes it with the matching H5*close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  /// Throws trainsim::Error with `what` when `id` is negative (an HDF5 failure).
  Handle(hid_t id, Closer closer, const std::string& what);
  ~Handle();
  Handle(Handle&& other) noexcept;
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  hid_t get() const { return id_; }
  /// Closes now, checking the result (a file's last writes happen here). Throws trainsim::Error.
  void close(const std::string& what);

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Silences HDF5's own error printing on this thread while it lives (failures are reported as
/// exceptions; a thread-safe HDF5 keeps this setting per thread).
class QuietErrors {
 public:
  QuietErrors();
  ~QuietErrors();
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

/// Throws trainsim::Error with `what` when `status` is negative.
void check(herr_t status, const std::string& what);

/// HDF5's reason for its last failure on this thread, from its error stack (the system's
/// message where the innermost entry has one), and the stack cleared. Empty when none.
std::string last_failure_reason();

/// Writes an HDF5 file into `file`: `body` fills the root group of a file HDF5 builds in
/// memory (its core driver, no backing store), whose image is then appended to `file`. HDF5
/// itself never touches the disk, so a full disk or a device is our own write's error, reported
/// cleanly (HDF5 1.10 crashes at exit after a failed close of a file it wrote itself). Any
/// failure throws OutputError naming file.final_path() and the reason; commit `file` afterwards.
void write_file(AtomicOutputFile& file, const std::function<void(hid_t root)>& body);

/// Whether `parent` has a link (group, dataset) named `name`.
bool has_link(hid_t parent, const std::string& name);
/// Whether `object` has an attribute named `name`.
bool has_attribute(hid_t object, const std::string& name);

/// A group whose objects carry no modification times (so equal inputs give equal files).
Handle create_group(hid_t parent, const std::string& name);

/// A fixed-length, null-padded string type of `size` bytes.
Handle fixed_string_type(size_t size);

void write_attribute(hid_t object, const std::string& name, const std::string& value);  ///< UTF-8, variable length
void write_attribute(hid_t object, const std::string& name, double value);
void write_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_attribute(hid_t object, const std::string& name, std::uint64_t value);
void write_attribute(hid_t object, const std::string& name, const std::vector<double>& values);

std::string read_string_attribute(hid_t object, const std::string& name);
double read_double_attribute(hid_t object, const std::string& name);
std::int64_t read_int_attribute(hid_t object, const std::string& name);
std::uint64_t read_uint_attribute(hid_t object, const std::string& name);
std::vector<double> read_doubles_attribute(hid_t object, const std::string& name);

/// A one-dimensional dataset of `rows` rows stored as `file_type`, from `data` laid out as
/// `memory_type`: chunked (extendible, so a zero-row table is still a table), shuffled and
/// deflate-compressed.
Handle write_table(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type, const void* data,
                   size_t rows);

/// Rows of the table `name`, read as `type` into `row_size`-byte rows.
std::vector<char> read_table(hid_t parent, const std::string& name, hid_t type, size_t row_size, size_t& rows);

/// A numeric field as an attribute: float64 for floating-point types, int64 for integers
/// (the run and step field lists hold both).
template <class T>
void write_number_attribute(hid_t object, const std::string& name, T value) {
  if constexpr (std::is_floating_point_v<T>)
    write_attribute(object, name, static_cast<double>(value));
  else
    write_attribute(object, name, static_cast<std::int64_t>(value));
}
template <class T>
void read_number_attribute(hid_t object, const std::string& name, T& value) {
  if constexpr (std::is_floating_point_v<T>)
    value = static_cast<T>(read_double_attribute(object, name));
  else
    value = static_cast<T>(read_int_attribute(object, name));
}

}  // namespace trainsim::hdf5
