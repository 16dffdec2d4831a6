# The substitution rule of doc/INTEGRATION.md, applied to one source file:
# a oneDNN Graph program becomes a fusebox program with these replacements,
# in this order, and nothing else.
#   cmake -DIN=<oneDNN source> -DOUT=<fusebox source> -P onednn_to_fusebox.cmake
file(READ "${IN}" text)

# 1. Headers, in "..." or <...> form.
foreach(pair
    "dnnl_graph.hpp=fusebox.hpp" "dnnl_common.hpp=fusebox.hpp" "dnnl.hpp=fusebox.hpp"
    "dnnl_graph.h=fusebox.h" "dnnl_common.h=fusebox.h" "dnnl.h=fusebox.h"
    "dnnl_graph_types.h=fusebox_types.h" "dnnl_common_types.h=fusebox_types.h"
    "dnnl_types.h=fusebox_types.h" "dnnl_config.h=fusebox_types.h")
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 from)
  list(GET pair 1 to)
  string(REPLACE "\"oneapi/dnnl/${from}\"" "<fusebox/${to}>" text "${text}")
  string(REPLACE "<oneapi/dnnl/${from}>" "<fusebox/${to}>" text "${text}")
endforeach()

# 2. Namespaces, C names and macros.
foreach(pair
    "dnnl::graph::=fusebox::"
    "dnnl::graph=fusebox"
    "dnnl::=fusebox::"
    "dnnl_graph_=fusebox_"
    "dnnl_=fusebox_"
    "DNNL_GRAPH_=FUSEBOX_"
    "DNNL_=FUSEBOX_")
  string(FIND "${pair}" "=" eq REVERSE)
  string(SUBSTRING "${pair}" 0 ${eq} from)
  math(EXPR rest "${eq} + 1")
  string(SUBSTRING "${pair}" ${rest} -1 to)
  string(REPLACE "${from}" "${to}" text "${text}")
endforeach()

# 3. Every remaining whole word dnnl (e.g. `namespace dnnl {`). Twice, since
#    one match consumes the character that bounds the next.
foreach(pass 1 2)
  string(REGEX REPLACE "(^|[^A-Za-z0-9_])dnnl([^A-Za-z0-9_]|$)" "\\1fusebox\\2" text "${text}")
endforeach()
file(WRITE "${OUT}" "${text}")
