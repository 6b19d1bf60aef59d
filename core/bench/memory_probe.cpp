#include "memory_probe.h"

#include <malloc.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace attnscope {

namespace {

/// Value in kB of a "Key:   123 kB" line of a /proc file, in bytes; -1 when absent.
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

}  // namespace

int64_t available_memory_bytes() { return proc_kb_field("/proc/meminfo", "MemAvailable"); }

int64_t total_memory_bytes() { return proc_kb_field("/proc/meminfo", "MemTotal"); }

int64_t resident_bytes() {
    std::ifstream in("/proc/self/statm");
    int64_t size_pages = 0, resident_pages = 0;
    if (!(in >> size_pages >> resident_pages)) return -1;
    return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

ResidentPeakProbe::ResidentPeakProbe() {
    // Give freed heap pages back first, else a run that reuses them shows no growth at all.
    malloc_trim(0);
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    m_hwm_reset = clear.good();
    m_start_rss = proc_kb_field("/proc/self/status", "VmRSS");
    if (m_start_rss < 0) m_start_rss = resident_bytes();
}

int64_t ResidentPeakProbe::peak_delta_bytes() const {
    if (m_start_rss < 0) return -1;
    const int64_t now = m_hwm_reset ? proc_kb_field("/proc/self/status", "VmHWM") : resident_bytes();
    return now < 0 ? -1 : now - m_start_rss;
}

}  // namespace attnscope
