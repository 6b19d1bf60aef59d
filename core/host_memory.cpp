#include "core/host_memory.h"

#include <sys/resource.h>

#include <algorithm>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/format.h"
#include "core/large_block_cache.h"

namespace attnscope {

int64_t proc_kb_field(const char* path, const std::string& key) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() || line[key.size()] != ':') continue;
        std::istringstream fields(line.substr(key.size() + 1));
        int64_t kb = -1;
        if (fields >> kb) return kb * 1024;
    }
    return -1;
}

int64_t available_memory_bytes() { return proc_kb_field("/proc/meminfo", "MemAvailable"); }

int64_t total_memory_bytes() { return proc_kb_field("/proc/meminfo", "MemTotal"); }

int64_t address_space_headroom_bytes() {
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return -1;
    const int64_t size = proc_kb_field("/proc/self/status", "VmSize");
    if (size < 0) return -1;
    return std::max<int64_t>(0, static_cast<int64_t>(limit.rlim_cur) - size);
}

HostMemoryLimit host_memory_limit() {
    HostMemoryLimit limit;
    if (const int64_t available = available_memory_bytes(); available >= 0)
        limit = {available, "available memory (MemAvailable)"};
    if (const int64_t headroom = address_space_headroom_bytes(); headroom >= 0 && (limit.bytes < 0 || headroom < limit.bytes))
        limit = {headroom, "the address-space limit (ulimit -v)"};
    return limit;
}

std::string host_memory_shortfall(int64_t need, const HostMemoryLimit& limit, const std::string& what,
                                  const std::string& advice) {
    if (limit.bytes < 0 || need <= limit.bytes) return "";
    return what + " needs an estimated " + format_bytes(double(need)) + " of memory but only " +
           format_bytes(double(limit.bytes)) + " are free (" + limit.source + "): " + advice;
}

void require_host_memory(int64_t need, const std::string& what, const std::string& advice) {
    std::string why = host_memory_shortfall(need, host_memory_limit(), what, advice);
    // Kept large blocks count as used in MemAvailable: hand them back before refusing.
    if (!why.empty() && large_block_release_all() > 0) why = host_memory_shortfall(need, host_memory_limit(), what, advice);
    if (!why.empty()) throw Error(why);
}

}  // namespace attnscope
