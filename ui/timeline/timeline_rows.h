#pragma once
// The timeline's rows, top to bottom: per node a header, then, unless the node is folded, per device
// its lanes: the schedule diagram (pipelined plans), the compute stream, and the communication streams
// the plan uses (one per process group, engine/cost/comm_streams.h).
// Plain geometry, tested on its own.

#include <vector>

namespace shardscope::ui {

/// The lanes a device can show: the simulator's streams, in the order of engine Stream (compute,
/// tensor, gather, reduce, pipeline), and for pipelined plans the schedule diagram.
enum class Lane { Compute, Tensor, Gather, Reduce, Pipeline, Schedule };

/// One row: a node header (device -1) or a device's lane.
struct TimelineRow {
    int node = 0;
    int device = -1;
    Lane lane = Lane::Compute; ///< which lane (node headers: Compute)
    double y = 0;
    double height = 0;
};

class TimelineRows {
public:
    /// Rows for `devices` devices, `perNode` per node, with `folded[n]` hiding node n's lanes; each
    /// device shows `lanes`, in that order.
    TimelineRows(int devices, int perNode, const std::vector<bool>& folded, double laneHeight, double headerHeight,
                 const std::vector<Lane>& lanes);
    /// An empty layout.
    TimelineRows() = default;

    /// Every row, top to bottom.
    const std::vector<TimelineRow>& rows() const { return rows_; }
    /// Total height.
    double height() const { return height_; }
    /// The row containing `y`, or -1.
    int rowAt(double y) const;
    /// The row of `device`'s `lane`, or -1 when its node is folded.
    int rowOf(int device, Lane lane) const;

private:
    std::vector<TimelineRow> rows_;
    double height_ = 0;
};

} // namespace shardscope::ui
