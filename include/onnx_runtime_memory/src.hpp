// The compiled core: the code behind every ONNX_RUNTIME_MEMORY_CORE
// declaration (detail/config.hpp). A program built with
// ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION includes this header in exactly
// one translation unit (the CMake target onnx_runtime_memory::compiled is
// that unit); without the macro it adds nothing the headers do not have.

#define ONNX_RUNTIME_MEMORY_SOURCE 1

#include "detail/order_portfolio.hpp"         // memory_aware_order's search
#include "detail/plan_error_message.hpp"      // PlanError::message
#include "detail/portfolio.hpp"               // place_buffers: every arena strategy and search
#include "detail/spill_plan.hpp"              // plan_spill
#include "detail/validate_error_message.hpp"  // ValidateError::message
