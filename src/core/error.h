// Error — the one error type returned up to the CLI, which prints it once.
// Per-connection failures are data (error classes in the recorder), never this type.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pqc {

enum class ErrorKind {
  kUsage,        // bad flag or argument value
  kConfig,       // bad scenario / configuration content
  kUnsupported,  // the algorithm or combination cannot work with this OpenSSL
  kTls,          // an OpenSSL call failed
  kIo,           // files, sockets
  kNoSpace,      // a filesystem is full (the results directory's, above all)
  kSystem,       // other OS calls
};

struct Error {
  ErrorKind kind;
  std::string message;
};

// Result — a value or an Error. (std::expected is C++23; this is the C++20 subset we need.)
// [[nodiscard]]: an ignored failure is a bug; a deliberate one is spelt (void).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  T&& operator*() && { return std::get<0>(std::move(v_)); }
  const T& operator*() const& { return std::get<0>(v_); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Status — success or an Error, for operations with no value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return error_; }

 private:
  Error error_{ErrorKind::kSystem, {}};
  bool failed_ = false;
};

inline Error MakeError(ErrorKind kind, std::string message) {
  return {kind, std::move(message)};
}

}  // namespace pqc
