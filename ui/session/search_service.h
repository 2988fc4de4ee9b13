#pragma once
// The session's search (docs/DESIGN.md, Search): the search bar's settings, the plan's locks and its
// locked stage cut turned into a SearchRequest, run in the background, its plan pushed as one
// undoable command with the evaluation the search made.

#include "plan_state.h"

#include "engine/search/search.h"

#include <QObject>

#include <memory>

namespace shardscope::ui {

class Session;

class SearchService final : public QObject {
    Q_OBJECT
public:
    /// Searches for `session`.
    explicit SearchService(Session& session);

    /// Runs the search with the session's settings. Locked ops keep their strategy (and, pipelined,
    /// their stage); a locked stage cut stays; with locks or a locked cut and mesh "auto" the mesh is
    /// the plan's. With `aroundLocks` the mesh is always the plan's.
    void run(bool aroundLocks = false);
    /// The last search's result, if any.
    std::shared_ptr<const SearchResult> last() const { return last_; }
    /// The last search's plan, costed (problem null before any search).
    const PlanState& searchedState() const { return searched_; }
    /// Forgets the last search (a new document).
    void forget();

private:
    Session& session_;
    std::shared_ptr<const SearchResult> last_;
    PlanState searched_;
};

} // namespace shardscope::ui
