// The compiled core: the code behind every ONNX_RUNTIME_MEMORY_CORE
// declaration (detail/config.hpp). A program built with
// ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION includes this header in exactly
// one translation unit (the CMake target onnx_runtime_memory::compiled is
// that unit); without the macro it adds nothing the headers do not have.

#define ONNX_RUNTIME_MEMORY_SOURCE 1

#include "detail/best_fit_walk.hpp"           // the walks in execution order
#include "detail/bound_sweeps.hpp"            // the lower bounds
#include "detail/columns.hpp"                 // the columns of an offset problem
#include "detail/inplace.hpp"                 // decide_inplace
#include "detail/kept_sizes.hpp"              // what the re-planners keep
#include "detail/liveness_check.hpp"          // validate_liveness's checks
#include "detail/liveness_passes.hpp"         // compute_liveness
#include "detail/liveness_shape.hpp"          // check_liveness
#include "detail/offset_checks.hpp"           // validate_offsets
#include "detail/offset_columns.hpp"          // plan_offsets' checks and placement
#include "detail/order_portfolio.hpp"         // memory_aware_order once the graph is read
#include "detail/overlap_sweep.hpp"           // first_overlap
#include "detail/owner_sizes.hpp"             // the sizes stage
#include "detail/plan_error_message.hpp"      // PlanError::message
#include "detail/model_planning.hpp"          // PlannedModel
#include "detail/portfolio.hpp"               // place_buffers: every arena strategy and search
#include "detail/radix_sort.hpp"              // the radix sort
#include "detail/sized_arena.hpp"             // plan_arena once sized, arena_from_slots
#include "detail/slot_checks.hpp"             // validate's checks of slots
#include "detail/slot_planning.hpp"           // the slot planners
#include "detail/spill_plan.hpp"              // plan_spill
#include "detail/stream_passes.hpp"           // the concurrent layer's passes: items, conflicts, the antichain bound
#include "detail/stream_planning.hpp"         // the concurrent plans
#include "detail/validate_error_message.hpp"  // ValidateError::message
#include "detail/window_checks.hpp"           // validate's checks of windows
