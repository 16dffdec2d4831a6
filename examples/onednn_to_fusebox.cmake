# The substitution rule of doc/INTEGRATION.md, applied to one source file:
# a oneDNN Graph program becomes a fusebox program with these replacements,
# in this order, and nothing else.
#   cmake -DIN=<oneDNN source> -DOUT=<fusebox source> -P onednn_to_fusebox.cmake
file(READ "${IN}" text)
foreach(pair
    "\"oneapi/dnnl/dnnl_graph.hpp\"=<fusebox/fusebox.hpp>"
    "\"oneapi/dnnl/dnnl_graph.h\"=<fusebox/fusebox.h>"
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
file(WRITE "${OUT}" "${text}")
