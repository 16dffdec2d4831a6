// The state behind an op handle: fusebox::op (shared by its copies) and the
// C API's fusebox_op_t point to one of these.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "fusebox/fusebox.hpp"

struct fusebox_op {
    size_t id;
    fusebox::op::kind kind;
    std::vector<fusebox::logical_tensor> inputs;
    std::vector<fusebox::logical_tensor> outputs;
    std::string name;
    std::map<fusebox::op::attr, fusebox::op::attr_value> attrs;
};
