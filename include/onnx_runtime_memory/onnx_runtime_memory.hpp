// onnx-runtime-memory: liveness-based activation memory planning.
// The core needs only the standard library. Formatting support is opt-in:
// include <onnx_runtime_memory/fmt.hpp> yourself.
#pragma once

#include "arena.hpp"
#include "arena_spaces.hpp"
#include "bounds.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "memory_order.hpp"
#include "offsets.hpp"
#include "order.hpp"
#include "placements.hpp"
#include "plan.hpp"
#include "planned_model.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "sizing.hpp"
#include "spaces.hpp"
#include "spill.hpp"
#include "spill_types.hpp"
#include "validate.hpp"
#include "validate_offsets.hpp"
#include "validate_spaces.hpp"
#include "validate_spill.hpp"
#include "view_map.hpp"
