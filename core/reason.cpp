#include "reason.h"

namespace attnscope {

const char* reason_name(Reason r) {
    switch (r) {
        case Reason::None: return "none";
        case Reason::Dense: return "dense";
        case Reason::Local: return "local";
        case Reason::Stride: return "stride";
        case Reason::Summary: return "summary";
        case Reason::Window: return "window";
        case Reason::Dilated: return "dilated";
        case Reason::Global: return "global";
        case Reason::Random: return "random";
        case Reason::Segment: return "segment";
        case Reason::Memory: return "memory";
        case Reason::Bucket: return "bucket";
        case Reason::Count: break;
    }
    return "?";
}

}  // namespace attnscope
