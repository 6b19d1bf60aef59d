// attnscope — the one exception type the core throws.
// Every message says what was wrong and what to do, e.g. "window 900 > 2n = 512: choose a window <= 2n".
#pragma once
#include <stdexcept>
#include <string>

namespace attnscope {

/// Error raised for bad input or an impossible request; what() is a sentence a user can act on.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// The GPU does not have (or ran out of) the device memory a run needs; what() says how much was needed and
/// free and suggests --backend cpu. Front ends catch it to offer the CPU backend.
class DeviceMemoryError : public Error {
public:
    explicit DeviceMemoryError(const std::string& message) : Error(message) {}
};

}  // namespace attnscope
