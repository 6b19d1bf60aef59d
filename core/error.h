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

}  // namespace attnscope
