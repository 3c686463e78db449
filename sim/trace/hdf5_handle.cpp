#include "sim/trace/hdf5_handle.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/core/utf8_text.hpp"

namespace trainsim::hdf5 {

namespace {

// Rows per chunk: large enough to compress well, small enough to read a slice cheaply.
constexpr hsize_t k_chunk_rows = 16384;
// zlib level: 6 is its own default, a balance of size and speed.
constexpr unsigned k_deflate_level = 6;
// Growth step of an in-memory file image.
constexpr size_t k_image_increment_bytes = size_t{1} << 20;

Handle scalar_space() {
  return Handle(H5Screate(H5S_SCALAR), H5Sclose, "scalar dataspace");
}

Handle new_attribute(hid_t object, const std::string& name, hid_t type, hid_t space) {
  if (H5Aexists(object, name.c_str()) > 0) check(H5Adelete(object, name.c_str()), "delete attribute " + name);
  return Handle(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                "create attribute " + name);
}

Handle open_attribute(hid_t object, const std::string& name) {
  return Handle(H5Aopen(object, name.c_str(), H5P_DEFAULT), H5Aclose, "open attribute " + name);
}

herr_t collect_reason(unsigned n, const H5E_error2_t* entry, void* data) {
  auto* reason = static_cast<std::string*>(data);
  const std::string desc = entry->desc ? entry->desc : "";
  // The file drivers put the system's message in their description: "..., error message =
  // 'No space left on device', ...". The innermost entry (n = 0) is the closest to the cause.
  const std::string marker = "error message = '";
  if (const size_t at = desc.find(marker); at != std::string::npos) {
    const size_t from = at + marker.size();
    *reason = desc.substr(from, desc.find('\'', from) - from);
    return 1;  // found: stop walking
  }
  if (n == 0) *reason = desc;
  return 0;
}

std::string failure(const std::string& what) {
  const std::string reason = last_failure_reason();
  return "HDF5: cannot " + what + (reason.empty() ? "" : ": " + reason);
}

}  // namespace

std::string last_failure_reason() {
  std::string reason;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, collect_reason, &reason);
  H5Eclear2(H5E_DEFAULT);
  // One line: HDF5's descriptions may hold newlines (a time stamp).
  for (char& c : reason)
    if (c == '\n' || c == '\r') c = ' ';
  return reason;
}

Handle::Handle(hid_t id, Closer closer, const std::string& what) : id_(id), closer_(closer) {
  if (id < 0) throw Error(failure(what));
}

void Handle::close(const std::string& what) {
  const herr_t status = id_ >= 0 && closer_ ? closer_(id_) : 0;
  id_ = H5I_INVALID_HID;
  check(status, what);
}

Handle::~Handle() {
  if (id_ >= 0 && closer_) closer_(id_);
}

Handle::Handle(Handle&& other) noexcept
    : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(std::exchange(other.closer_, nullptr)) {}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    if (id_ >= 0 && closer_) closer_(id_);
    id_ = std::exchange(other.id_, H5I_INVALID_HID);
    closer_ = std::exchange(other.closer_, nullptr);
  }
  return *this;
}

QuietErrors::QuietErrors() {
  H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

QuietErrors::~QuietErrors() {
  H5Eset_auto2(H5E_DEFAULT, function_, data_);
}

void check(herr_t status, const std::string& what) {
  if (status < 0) throw Error(failure(what));
}

void write_file(AtomicOutputFile& file, const std::function<void(hid_t root)>& body) {
  const QuietErrors quiet;
  std::vector<char> image;
  try {
    const Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access property list");
    check(H5Pset_fapl_core(access.get(), k_image_increment_bytes, false), "select the in-memory file driver");
    Handle f(H5Fcreate(file.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()), H5Fclose,
             "create " + file.temp_path() + " in memory");
    body(f.get());
    check(H5Fflush(f.get(), H5F_SCOPE_GLOBAL), "flush " + file.temp_path());
    const ssize_t size = H5Fget_file_image(f.get(), nullptr, 0);
    check(size < 0 ? -1 : 0, "size the image of " + file.temp_path());
    image.resize(static_cast<size_t>(size));
    check(H5Fget_file_image(f.get(), image.data(), image.size()) < 0 ? -1 : 0, "copy the image of " + file.temp_path());
    f.close("close " + file.temp_path());
  } catch (const Error& e) {
    throw OutputError(file.final_path(), e.what());
  }
  file.append({image.data(), image.size()});
}

bool has_link(hid_t parent, const std::string& name) {
  const htri_t exists = H5Lexists(parent, name.c_str(), H5P_DEFAULT);
  check(exists, "look up " + name);
  return exists > 0;
}

bool has_attribute(hid_t object, const std::string& name) {
  const htri_t exists = H5Aexists(object, name.c_str());
  check(exists, "look up attribute " + name);
  return exists > 0;
}

Handle create_group(hid_t parent, const std::string& name) {
  Handle plist(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "group property list");
  check(H5Pset_obj_track_times(plist.get(), false), "disable time tracking");
  return Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, plist.get(), H5P_DEFAULT), H5Gclose,
                "create group " + name);
}

Handle fixed_string_type(size_t size) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "copy string type");
  check(H5Tset_size(type.get(), size), "set string size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), "set string padding");
  return type;
}

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "copy string type");
  check(H5Tset_size(type.get(), H5T_VARIABLE), "set variable string size");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set UTF-8");
  const Handle space = scalar_space();
  const Handle attr = new_attribute(object, name, type.get(), space.get());
  // Declared UTF-8: a user's path that is not (`replay $'c\xff/step' --trace t.h5`) was stored
  // as its bytes, and h5py's attrs[...] raised UnicodeDecodeError. As U+FFFD, as in --json.
  const std::string utf8 = utf8_replaced(value);
  const char* text = utf8.c_str();
  check(H5Awrite(attr.get(), type.get(), &text), "write attribute " + name);
}

void write_attribute(hid_t object, const std::string& name, double value) {
  const Handle space = scalar_space();
  const Handle attr = new_attribute(object, name, H5T_IEEE_F64LE, space.get());
  check(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value), "write attribute " + name);
}

void write_attribute(hid_t object, const std::string& name, std::int64_t value) {
  const Handle space = scalar_space();
  const Handle attr = new_attribute(object, name, H5T_STD_I64LE, space.get());
  check(H5Awrite(attr.get(), H5T_NATIVE_INT64, &value), "write attribute " + name);
}

void write_attribute(hid_t object, const std::string& name, std::uint64_t value) {
  const Handle space = scalar_space();
  const Handle attr = new_attribute(object, name, H5T_STD_U64LE, space.get());
  check(H5Awrite(attr.get(), H5T_NATIVE_UINT64, &value), "write attribute " + name);
}

void write_attribute(hid_t object, const std::string& name, const std::vector<double>& values) {
  const hsize_t n = values.size();
  const Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "dataspace for " + name);
  const Handle attr = new_attribute(object, name, H5T_IEEE_F64LE, space.get());
  if (n > 0) check(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, values.data()), "write attribute " + name);
}

std::string read_string_attribute(hid_t object, const std::string& name) {
  const Handle attr = open_attribute(object, name);
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose, "copy string type");
  check(H5Tset_size(type.get(), H5T_VARIABLE), "set variable string size");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "set UTF-8");
  char* text = nullptr;
  check(H5Aread(attr.get(), type.get(), &text), "read attribute " + name);
  std::string value = text ? text : "";
  H5free_memory(text);
  return value;
}

double read_double_attribute(hid_t object, const std::string& name) {
  const Handle attr = open_attribute(object, name);
  double value = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value), "read attribute " + name);
  return value;
}

std::int64_t read_int_attribute(hid_t object, const std::string& name) {
  const Handle attr = open_attribute(object, name);
  std::int64_t value = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_INT64, &value), "read attribute " + name);
  return value;
}

std::uint64_t read_uint_attribute(hid_t object, const std::string& name) {
  const Handle attr = open_attribute(object, name);
  std::uint64_t value = 0;
  check(H5Aread(attr.get(), H5T_NATIVE_UINT64, &value), "read attribute " + name);
  return value;
}

std::vector<double> read_doubles_attribute(hid_t object, const std::string& name) {
  const Handle attr = open_attribute(object, name);
  const Handle space(H5Aget_space(attr.get()), H5Sclose, "attribute dataspace " + name);
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  std::vector<double> values(static_cast<size_t>(std::max<hssize_t>(n, 0)));
  if (!values.empty()) check(H5Aread(attr.get(), H5T_NATIVE_DOUBLE, values.data()), "read attribute " + name);
  return values;
}

Handle write_table(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type, const void* data,
                   size_t rows) {
  const hsize_t dims = rows;
  const hsize_t max_dims = H5S_UNLIMITED;
  const Handle space(H5Screate_simple(1, &dims, &max_dims), H5Sclose, "dataspace for " + name);
  Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "dataset property list");
  const hsize_t chunk = std::clamp<hsize_t>(rows, 1, k_chunk_rows);
  check(H5Pset_chunk(plist.get(), 1, &chunk), "set chunk size of " + name);
  check(H5Pset_shuffle(plist.get()), "set shuffle filter of " + name);
  check(H5Pset_deflate(plist.get(), k_deflate_level), "set deflate filter of " + name);
  check(H5Pset_obj_track_times(plist.get(), false), "disable time tracking of " + name);
  Handle set(H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT), H5Dclose,
             "create dataset " + name);
  if (rows > 0) check(H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "write dataset " + name);
  return set;
}

std::vector<char> read_table(hid_t parent, const std::string& name, hid_t type, size_t row_size, size_t& rows) {
  const Handle set(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, "open dataset " + name);
  const Handle space(H5Dget_space(set.get()), H5Sclose, "dataspace of " + name);
  const hssize_t n = H5Sget_simple_extent_npoints(space.get());
  rows = static_cast<size_t>(std::max<hssize_t>(n, 0));
  std::vector<char> data(rows * row_size);
  if (rows > 0) check(H5Dread(set.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()), "read dataset " + name);
  return data;
}

}  // namespace trainsim::hdf5
