#include "engine/cost/gather_prefetch.h"


namespace shardscope {

GatherPrefetch::GatherPrefetch(const std::vector<double>& gatherBytes, const std::vector<double>& workingSet,
                               double workspace)
    : bytes_(gatherBytes), working_(workingSet), workspace_(workspace) {
    for (std::size_t i = 0; i < bytes_.size(); ++i)
        if (bytes_[i] > 0)
            gathers_.push_back(i);
}

GatherPrefetch::Issue GatherPrefetch::at(std::size_t i) {
    Issue out;
    // The window of working sets between here and the next gather to issue: [i, end_).
    while (!peak_.empty() && peak_.front() < i)
        peak_.pop_front();
    if (end_ < i)
        end_ = i;
    if (!issued_.empty() && issued_.front() == i) {
        outstanding_ -= bytes_[i];
        issued_.pop_front();
    } else if (next_ < gathers_.size() && gathers_[next_] == i) {
        out.own = true;
        ++next_;
    }
    out.first = out.last = next_;
    while (next_ < gathers_.size()) {
        const std::size_t j = gathers_[next_];
        for (; end_ < j; ++end_) {
            while (!peak_.empty() && working_[peak_.back()] <= working_[end_])
                peak_.pop_back();
            peak_.push_back(end_);
        }
        const double most = peak_.empty() ? 0.0 : working_[peak_.front()];
        if (most + outstanding_ + bytes_[j] > workspace_)
            break;
        issued_.push_back(j);
        outstanding_ += bytes_[j];
        out.last = ++next_;
    }
    return out;
}

} // namespace shardscope
