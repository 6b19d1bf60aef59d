#include "core/bench/memory_probe.h"

#include <malloc.h>
#include <unistd.h>

#include <fstream>

namespace attnscope {

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
