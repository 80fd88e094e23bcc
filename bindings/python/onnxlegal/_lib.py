"""Loading libonnxlegal and declaring every public C function for ctypes.

Only ints, pointers, C strings and callbacks cross the boundary: no C struct is laid out in
Python. Option structs are passed as NULL (the defaults), or built in C through the library's
heap helpers (olg_write_options_new and its setters).

SIGNATURES lists every OLG_API function of include/onnxlegal/*.h with its restype and argtypes;
tests/py/test_binding.py parses the headers and fails when this table drifts from them.
"""
import ctypes
import os
import sys
from ctypes import (CFUNCTYPE, POINTER as P, c_char_p, c_double, c_float, c_int, c_int32,
                    c_int64, c_size_t, c_uint64, c_void_p)

# Callback types of the C API (they must be kept alive while C may call them).
WRITE_FN = CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t)      # olg_write_fn
RELEASE_FN = CFUNCTYPE(None, c_void_p, c_void_p, c_size_t)     # olg_release_fn
SYMBOLIC_FN = CFUNCTYPE(c_int, c_void_p, c_int32, c_void_p)    # olg_symbolic_fn
PROFILE_REWRITE_FN = CFUNCTYPE(c_int, c_void_p, c_int32, c_char_p, c_void_p)  # olg_profile_rewrite_fn
SHAPE_FN = CFUNCTYPE(c_int, c_void_p, c_int32, c_void_p)       # olg_shape_fn

# name: (restype, argtypes), grouped by header.
SIGNATURES = {
    # check.h
    "olg_check_options_init": (None, [c_void_p]),
    "olg_check_options_new": (c_int, [P(c_void_p)]),
    "olg_check_options_free": (None, [c_void_p]),
    "olg_check_options_set": (c_int, [c_void_p, c_int, c_int, c_size_t, c_int]),
    "olg_check_options_set_strict": (c_int, [c_void_p, c_int]),
    "olg_check": (c_int, [c_void_p, c_void_p, c_void_p]),
    "olg_infer_shapes": (c_int, [c_void_p, c_void_p, c_void_p]),
    # diag.h
    "olg_diags_new": (c_int, [P(c_void_p), c_void_p]),
    "olg_diags_free": (None, [c_void_p]),
    "olg_diags_clear": (None, [c_void_p]),
    "olg_diags_count": (c_size_t, [c_void_p]),
    "olg_diags_error_count": (c_size_t, [c_void_p]),
    "olg_diags_lost": (c_size_t, [c_void_p]),
    "olg_diags_add": (c_int, [c_void_p, c_int, c_char_p, c_char_p, c_char_p, c_char_p, c_int64, c_char_p]),
    "olg_diag_severity": (c_int, [c_void_p, c_size_t]),
    "olg_diag_code": (c_char_p, [c_void_p, c_size_t]),
    "olg_diag_node": (c_char_p, [c_void_p, c_size_t]),
    "olg_diag_domain": (c_char_p, [c_void_p, c_size_t]),
    "olg_diag_op": (c_char_p, [c_void_p, c_size_t]),
    "olg_diag_opset": (c_int64, [c_void_p, c_size_t]),
    "olg_diag_message": (c_char_p, [c_void_p, c_size_t]),
    "olg_diag_min_opset": (c_int64, [c_void_p, c_size_t]),
    "olg_diag_node_index": (c_int64, [c_void_p, c_size_t]),
    # ops.h
    "olg_schema_domain_opset": (c_int, [c_char_p]),
    "olg_schema_op_count": (c_size_t, [c_char_p]),
    "olg_schema_op_name": (c_char_p, [c_char_p, c_size_t]),
    "olg_schema_op_versions": (c_size_t, [c_char_p, c_char_p, P(c_int), c_size_t]),
    "olg_schema_op_defined_at": (c_int, [c_char_p, c_char_p, c_int64]),
    "olg_diag_output": (c_char_p, [c_void_p, c_size_t]),
    "olg_diag_format": (c_size_t, [c_void_p, c_size_t, c_char_p, c_size_t]),
    # dtype.h
    "olg_dtype_name": (c_char_p, [c_int]),
    "olg_dtype_from_name": (c_int, [c_char_p]),
    "olg_dtype_bits": (c_int, [c_int]),
    "olg_dtype_nbytes": (c_size_t, [c_int, c_uint64]),
    # graph.h
    "olg_model_options_init": (None, [c_void_p]),
    "olg_model_new": (c_int, [P(c_void_p), c_void_p]),
    "olg_model_free": (None, [c_void_p]),
    "olg_model_graph": (c_void_p, [c_void_p]),
    "olg_model_graph_const": (c_void_p, [c_void_p]),
    "olg_model_set_ir_version": (c_int, [c_void_p, c_int64]),
    "olg_model_ir_version": (c_int64, [c_void_p]),
    "olg_model_set_opset": (c_int, [c_void_p, c_char_p, c_int64]),
    "olg_model_opset": (c_int64, [c_void_p, c_char_p]),
    "olg_model_opset_count": (c_size_t, [c_void_p]),
    "olg_model_opset_at": (c_int, [c_void_p, c_size_t, P(c_char_p), P(c_int64)]),
    "olg_model_set_string": (c_int, [c_void_p, c_int, c_char_p]),
    "olg_model_string": (c_char_p, [c_void_p, c_int]),
    "olg_model_set_model_version": (c_int, [c_void_p, c_int64]),
    "olg_model_model_version": (c_int64, [c_void_p]),
    "olg_model_set_metadata": (c_int, [c_void_p, c_char_p, c_char_p]),
    "olg_model_metadata_count": (c_size_t, [c_void_p]),
    "olg_model_metadata_at": (c_int, [c_void_p, c_size_t, P(c_char_p), P(c_char_p)]),
    "olg_model_new_subgraph": (c_int, [c_void_p, P(c_void_p)]),
    "olg_model_function_count": (c_size_t, [c_void_p]),
    "olg_model_function_at": (c_int, [c_void_p, c_size_t, P(c_char_p), P(c_char_p), P(c_void_p)]),
    "olg_model_add_function": (c_int, [c_void_p, c_char_p, c_char_p, c_void_p, P(c_char_p), c_size_t]),
    "olg_model_inline_functions": (c_int, [c_void_p]),
    "olg_graph_add_formal_input": (c_int, [c_void_p, c_int32]),
    "olg_graph_model": (c_void_p, [c_void_p]),
    "olg_graph_set_name": (c_int, [c_void_p, c_char_p]),
    "olg_graph_name": (c_char_p, [c_void_p]),
    "olg_graph_set_doc_string": (c_int, [c_void_p, c_char_p]),
    "olg_graph_doc_string": (c_char_p, [c_void_p]),
    "olg_graph_add_input": (c_int, [c_void_p, c_char_p, c_int, c_int32, P(c_int64), P(c_char_p), P(c_int32)]),
    "olg_graph_add_value": (c_int, [c_void_p, c_char_p, P(c_int32)]),
    "olg_graph_add_output": (c_int, [c_void_p, c_int32]),
    "olg_graph_add_value_info": (c_int, [c_void_p, c_int32]),
    "olg_graph_add_initializer": (c_int, [c_void_p, c_char_p, c_int, c_int32, P(c_int64), c_void_p, c_size_t, c_int, RELEASE_FN, c_void_p, P(c_int32)]),
    "olg_graph_add_string_initializer": (c_int, [c_void_p, c_char_p, c_int32, P(c_int64), P(c_char_p), P(c_size_t), P(c_int32)]),
    "olg_graph_input_count": (c_size_t, [c_void_p]),
    "olg_graph_input_at": (c_int32, [c_void_p, c_size_t]),
    "olg_graph_output_count": (c_size_t, [c_void_p]),
    "olg_graph_output_at": (c_int32, [c_void_p, c_size_t]),
    "olg_graph_initializer_count": (c_size_t, [c_void_p]),
    "olg_graph_initializer_at": (c_int32, [c_void_p, c_size_t]),
    "olg_graph_value_count": (c_size_t, [c_void_p]),
    "olg_graph_node_count": (c_size_t, [c_void_p]),
    "olg_graph_find_value": (c_int, [c_void_p, c_char_p, P(c_int32)]),
    "olg_value_name": (c_char_p, [c_void_p, c_int32]),
    "olg_value_dtype": (c_int, [c_void_p, c_int32]),
    "olg_value_rank": (c_int32, [c_void_p, c_int32]),
    "olg_value_dim": (c_int, [c_void_p, c_int32, c_int32, P(c_int64), P(c_char_p)]),
    "olg_value_set_type": (c_int, [c_void_p, c_int32, c_int, c_int32, P(c_int64), P(c_char_p)]),
    "olg_value_producer": (c_int, [c_void_p, c_int32, P(c_int32), P(c_int32)]),
    "olg_value_data": (c_int, [c_void_p, c_int32, P(c_void_p), P(c_size_t)]),
    "olg_node_begin": (c_int, [c_void_p, c_char_p, c_char_p, c_char_p, P(c_int32)]),
    "olg_node_arg_value": (c_int, [c_void_p, c_int32, c_int32]),
    "olg_node_arg_values": (c_int, [c_void_p, c_int32, P(c_int32), c_size_t]),
    "olg_node_arg_none": (c_int, [c_void_p, c_int32]),
    "olg_node_arg_int": (c_int, [c_void_p, c_int32, c_int64]),
    "olg_node_arg_float": (c_int, [c_void_p, c_int32, c_double]),
    "olg_node_arg_bool": (c_int, [c_void_p, c_int32, c_int]),
    "olg_node_arg_string": (c_int, [c_void_p, c_int32, c_char_p]),
    "olg_node_arg_ints": (c_int, [c_void_p, c_int32, P(c_int64), c_size_t]),
    "olg_node_arg_floats": (c_int, [c_void_p, c_int32, P(c_double), c_size_t]),
    "olg_node_attr_int": (c_int, [c_void_p, c_int32, c_char_p, c_int64]),
    "olg_node_attr_float": (c_int, [c_void_p, c_int32, c_char_p, c_float]),
    "olg_node_attr_string": (c_int, [c_void_p, c_int32, c_char_p, c_char_p]),
    "olg_node_attr_bytes": (c_int, [c_void_p, c_int32, c_char_p, c_void_p, c_size_t]),
    "olg_node_attr_ints": (c_int, [c_void_p, c_int32, c_char_p, P(c_int64), c_size_t]),
    "olg_node_attr_floats": (c_int, [c_void_p, c_int32, c_char_p, P(c_float), c_size_t]),
    "olg_node_attr_strings": (c_int, [c_void_p, c_int32, c_char_p, P(c_char_p), c_size_t]),
    "olg_node_attr_tensor": (c_int, [c_void_p, c_int32, c_char_p, c_int, c_int32, P(c_int64), c_void_p, c_size_t]),
    "olg_node_attr_graph": (c_int, [c_void_p, c_int32, c_char_p, c_void_p]),
    "olg_node_attr_graphs": (c_int, [c_void_p, c_int32, c_char_p, P(c_void_p), c_size_t]),
    "olg_node_end": (c_int, [c_void_p, c_int32, c_size_t, P(c_char_p), P(c_int32)]),
    "olg_node_end_with": (c_int, [c_void_p, c_int32, c_size_t, P(c_int32)]),
    "olg_node_domain": (c_char_p, [c_void_p, c_int32]),
    "olg_node_op": (c_char_p, [c_void_p, c_int32]),
    "olg_node_name": (c_char_p, [c_void_p, c_int32]),
    "olg_node_input_count": (c_size_t, [c_void_p, c_int32]),
    "olg_node_input_at": (c_int32, [c_void_p, c_int32, c_size_t]),
    "olg_node_output_count": (c_size_t, [c_void_p, c_int32]),
    "olg_node_output_at": (c_int32, [c_void_p, c_int32, c_size_t]),
    "olg_node_attr_count": (c_size_t, [c_void_p, c_int32]),
    "olg_node_attr_name": (c_char_p, [c_void_p, c_int32, c_size_t]),
    "olg_graph_topo_order": (c_int, [c_void_p, P(c_int32)]),
    # io.h
    "olg_read_options_init": (None, [c_void_p]),
    "olg_model_read_file": (c_int, [P(c_void_p), c_char_p, c_void_p]),
    "olg_model_read_memory": (c_int, [P(c_void_p), c_void_p, c_size_t, c_void_p]),
    "olg_write_options_init": (None, [c_void_p]),
    "olg_write_options_new": (c_int, [P(c_void_p)]),
    "olg_write_options_free": (None, [c_void_p]),
    "olg_write_options_set_external_data": (c_int, [c_void_p, c_char_p, c_uint64]),
    "olg_write_options_set_external_data_dir": (c_int, [c_void_p, c_char_p]),
    "olg_model_rebase_external_data": (c_int, [c_void_p, c_char_p, c_char_p]),
    "olg_model_write_file": (c_int, [c_void_p, c_char_p, c_void_p]),
    "olg_model_write_fd": (c_int, [c_void_p, c_int, c_void_p]),
    "olg_model_write_callback": (c_int, [c_void_p, WRITE_FN, c_void_p, c_void_p]),
    "olg_model_print_text": (c_int, [c_void_p, WRITE_FN, c_void_p]),
    "olg_model_print_text_elided": (c_int, [c_void_p, c_uint64, WRITE_FN, c_void_p]),
    "olg_model_print_dot": (c_int, [c_void_p, WRITE_FN, c_void_p]),
    "olg_model_print_dot_diff": (c_int, [c_void_p, c_void_p, WRITE_FN, c_void_p]),
    # nanopb.h (only in builds with nanopb: `make NANOPB=1`; missing elsewhere)
    "olg_model_write_nanopb": (c_int, [c_void_p, WRITE_FN, c_void_p]),
    # legalize.h
    "olg_legalize_options_init": (None, [c_void_p]),
    "olg_legalize_options_new": (c_int, [P(c_void_p)]),
    "olg_legalize_options_free": (None, [c_void_p]),
    "olg_legalize_options_set_opset": (c_int, [c_void_p, c_int64]),
    "olg_legalize_options_set_ir_version": (c_int, [c_void_p, c_int64]),
    "olg_legalize_options_set_flags": (c_int, [c_void_p, c_int, c_int, c_int]),
    "olg_legalize_options_set_profile": (c_int, [c_void_p, c_char_p]),
    "olg_legalize_options_set_profile_object": (c_int, [c_void_p, c_void_p]),
    "olg_profile_builtin": (c_void_p, [c_char_p]),
    "olg_profile_builtin_name": (c_char_p, [c_size_t]),
    "olg_profile_new": (c_int, [P(c_void_p), c_char_p, c_void_p]),
    "olg_profile_free": (None, [c_void_p]),
    "olg_profile_name": (c_char_p, [c_void_p]),
    "olg_profile_add_op_rule": (c_int, [c_void_p, c_char_p, c_char_p, c_int, c_int]),
    "olg_profile_add_type_rule": (c_int, [c_void_p, c_char_p, c_char_p, c_int, c_int, c_char_p,
                                          c_int, P(c_int), c_size_t]),
    "olg_profile_add_known_input_rule": (c_int, [c_void_p, c_char_p, c_char_p, c_int, c_int, c_int]),
    "olg_profile_add_rank_rule": (c_int, [c_void_p, c_char_p, c_char_p, c_int, c_int, c_int,
                                          c_int, c_int]),
    "olg_profile_set_rewrite": (c_int, [c_void_p, c_char_p, PROFILE_REWRITE_FN, c_void_p]),
    "olg_profile_check": (c_int, [c_void_p, c_void_p, c_void_p]),
    "olg_lower_replace_value": (c_int, [c_void_p, c_int32, c_int32]),
    "olg_legalize_options_set_report": (c_int, [c_void_p, c_int]),
    "olg_legalize_options_set_fold_weights": (c_int, [c_void_p, c_int]),
    "olg_legalize_options_set_keep_functions": (c_int, [c_void_p, c_int]),
    "olg_ir_version_for_opset": (c_int64, [c_int64]),
    "olg_legalize": (c_int, [c_void_p, c_void_p, c_void_p, P(c_void_p), c_void_p]),
    "olg_legalize_consume": (c_int, [c_void_p, c_void_p, c_void_p, P(c_void_p), c_void_p]),
    "olg_lower_opset": (c_int64, [c_void_p]),
    "olg_lower_source_opset": (c_int64, [c_void_p]),
    "olg_lower_profile": (c_char_p, [c_void_p]),
    "olg_lower_decompositions_allowed": (c_int, [c_void_p]),
    "olg_lower_source": (c_void_p, [c_void_p]),
    "olg_lower_target": (c_void_p, [c_void_p]),
    "olg_lower_node_name": (c_char_p, [c_void_p]),
    "olg_lower_node_domain": (c_char_p, [c_void_p]),
    "olg_lower_node_op": (c_char_p, [c_void_p]),
    "olg_lower_arg_count": (c_size_t, [c_void_p]),
    "olg_lower_arg_kind": (c_int, [c_void_p, c_size_t]),
    "olg_lower_arg_is_none": (c_int, [c_void_p, c_size_t]),
    "olg_lower_arg_value": (c_int, [c_void_p, c_size_t, P(c_int32)]),
    "olg_lower_arg_values": (c_int, [c_void_p, c_size_t, P(P(c_int32)), P(c_size_t)]),
    "olg_lower_arg_int": (c_int, [c_void_p, c_size_t, P(c_int64)]),
    "olg_lower_arg_float": (c_int, [c_void_p, c_size_t, P(c_double)]),
    "olg_lower_arg_bool": (c_int, [c_void_p, c_size_t, P(c_int)]),
    "olg_lower_arg_string": (c_int, [c_void_p, c_size_t, P(c_char_p)]),
    "olg_lower_arg_ints": (c_int, [c_void_p, c_size_t, P(P(c_int64)), P(c_size_t)]),
    "olg_lower_arg_floats": (c_int, [c_void_p, c_size_t, P(P(c_double)), P(c_size_t)]),
    "olg_lower_arg_as_tensor": (c_int, [c_void_p, c_size_t, c_int, P(c_int32)]),
    "olg_lower_src_attr_has": (c_int, [c_void_p, c_char_p]),
    "olg_lower_src_attr_int": (c_int, [c_void_p, c_char_p, P(c_int64)]),
    "olg_lower_src_attr_float": (c_int, [c_void_p, c_char_p, P(c_double)]),
    "olg_lower_src_attr_string": (c_int, [c_void_p, c_char_p, P(c_char_p)]),
    "olg_lower_src_attr_ints": (c_int, [c_void_p, c_char_p, P(P(c_int64)), P(c_size_t)]),
    "olg_lower_src_attr_floats": (c_int, [c_void_p, c_char_p, P(P(c_float)), P(c_size_t)]),
    "olg_lower_output_count": (c_size_t, [c_void_p]),
    "olg_lower_output_used": (c_int, [c_void_p, c_size_t]),
    "olg_lower_value_dtype": (c_int, [c_void_p, c_int32]),
    "olg_lower_value_rank": (c_int32, [c_void_p, c_int32]),
    "olg_lower_value_dim": (c_int64, [c_void_p, c_int32, c_int32, P(c_char_p)]),
    "olg_lower_value_known": (c_int, [c_void_p, c_int32]),
    "olg_lower_value_data": (c_int, [c_void_p, c_int32, P(c_void_p), P(c_size_t)]),
    "olg_lower_value_ints": (c_int, [c_void_p, c_int32, P(P(c_int64)), P(c_size_t)]),
    "olg_lower_emit_begin": (c_int, [c_void_p, c_char_p, c_char_p, P(c_int32)]),
    "olg_lower_emit_input": (c_int, [c_void_p, c_int32, c_int32]),
    "olg_lower_emit_attr_int": (c_int, [c_void_p, c_int32, c_char_p, c_int64]),
    "olg_lower_emit_attr_float": (c_int, [c_void_p, c_int32, c_char_p, c_double]),
    "olg_lower_emit_attr_string": (c_int, [c_void_p, c_int32, c_char_p, c_char_p]),
    "olg_lower_emit_attr_ints": (c_int, [c_void_p, c_int32, c_char_p, P(c_int64), c_size_t]),
    "olg_lower_emit_attr_floats": (c_int, [c_void_p, c_int32, c_char_p, P(c_float), c_size_t]),
    "olg_lower_emit_attr_strings": (c_int, [c_void_p, c_int32, c_char_p, P(c_char_p), c_size_t]),
    "olg_lower_emit_attr_tensor": (c_int, [c_void_p, c_int32, c_char_p, c_int, c_int32, P(c_int64), c_void_p, c_size_t]),
    "olg_lower_emit_attr_graph": (c_int, [c_void_p, c_int32, c_char_p, c_void_p]),
    "olg_lower_emit_subgraph": (c_int, [c_void_p, P(c_void_p)]),
    "olg_lower_emit_end": (c_int, [c_void_p, c_int32, c_size_t, P(c_int32)]),
    "olg_lower_emit_end_at": (c_int, [c_void_p, c_int32, c_int, c_size_t, P(c_int32)]),
    "olg_lower_emit_const": (c_int, [c_void_p, c_int, c_int32, P(c_int64), c_void_p, c_size_t, P(c_int32)]),
    "olg_lower_emit_const_ints": (c_int, [c_void_p, P(c_int64), c_size_t, P(c_int32)]),
    "olg_lower_bind_output": (c_int, [c_void_p, c_size_t, c_int32]),
    "olg_lower_error": (c_int, [c_void_p, c_int, c_char_p]),
    "olg_lower_warning": (c_int, [c_void_p, c_char_p]),
    "olg_lower_unsupported": (c_int, [c_void_p, c_char_p, c_int]),
    "olg_lower_decompose": (c_int, [c_void_p, c_char_p, c_int]),
    # registry.h
    "olg_registry_new": (c_int, [P(c_void_p), c_void_p]),
    "olg_registry_new_builtin": (c_int, [P(c_void_p), c_void_p]),
    "olg_registry_free": (None, [c_void_p]),
    "olg_registry_freeze": (c_int, [c_void_p]),
    "olg_registry_is_frozen": (c_int, [c_void_p]),
    "olg_registry_add": (c_int, [c_void_p, c_char_p, c_char_p, c_int, SYMBOLIC_FN, c_void_p]),
    "olg_registry_add_ex": (c_int, [c_void_p, c_char_p, c_char_p, c_int, c_int, SYMBOLIC_FN, c_void_p]),
    "olg_registry_remove": (c_int, [c_void_p, c_char_p, c_char_p, c_int]),
    "olg_registry_add_shape_fn": (c_int, [c_void_p, c_char_p, c_char_p, SHAPE_FN, c_void_p]),
    "olg_registry_set_domain_version": (c_int, [c_void_p, c_char_p, c_int64]),
    "olg_registry_find": (c_int, [c_void_p, c_char_p, c_char_p, c_int, P(c_int), P(c_int)]),
    "olg_registry_lowering": (c_int, [c_void_p, c_char_p, c_char_p, c_int]),
    "olg_registry_min_opset": (c_int, [c_void_p, c_char_p, c_char_p, c_int]),
    "olg_registry_op_count": (c_size_t, [c_void_p]),
    "olg_registry_op_at": (c_int, [c_void_p, c_size_t, P(c_char_p), P(c_char_p)]),
    # status.h
    "olg_last_error": (c_char_p, []),
    "olg_status_name": (c_char_p, [c_int]),
    "olg_clear_error": (None, []),
    # version.h
    "olg_version": (c_int, []),
    "olg_version_string": (c_char_p, []),
}

# ---- status codes (status.h) and the exceptions they become ---------------------------------

OK = 0
ERR_NOMEM = -1
ERR_INVALID_ARG = -2
ERR_IO = -3
ERR_PARSE = -4
ERR_NOT_FOUND = -5
ERR_DUPLICATE = -6
ERR_UNSUPPORTED = -7
ERR_INVALID_MODEL = -8
ERR_RANGE = -9
ERR_STATE = -10
ERR_LIMIT = -11
ERR_CALLBACK = -12
ERR_TYPE = -13


class Error(Exception):
    """A failed onnxlegal call: `status` is the C status code, `status_name` its constant name
    (e.g. "OLG_ERR_PARSE"), `message` olg_last_error()'s text, `function` the C function."""

    def __init__(self, status, message, function=None):
        self.status = status
        self.message = message
        self.function = function
        self.status_name = _status_name(status)
        super().__init__(message or self.status_name)

    def __str__(self):
        msg = self.message or "(no message)"
        return "%s: %s" % (self.status_name, msg)


class NoMemoryError(Error):
    """OLG_ERR_NOMEM"""


class InvalidArgumentError(Error, ValueError):
    """OLG_ERR_INVALID_ARG; also what onnxlegal.convert and onnxlegal.torch.export raise for a
    bad opset, profile or report argument, before any work (a ValueError too, as it was)."""


class IOFailureError(Error):
    """OLG_ERR_IO: open, read, write or mmap failed"""


class ParseError(Error):
    """OLG_ERR_PARSE: the bytes are not a well-formed model"""


class NotFoundError(Error):
    """OLG_ERR_NOT_FOUND"""


class DuplicateError(Error):
    """OLG_ERR_DUPLICATE: a name that must be unique is taken"""


class UnsupportedError(Error):
    """OLG_ERR_UNSUPPORTED"""


class InvalidModelError(Error):
    """OLG_ERR_INVALID_MODEL"""


class RangeError(Error):
    """OLG_ERR_RANGE"""


class StateError(Error):
    """OLG_ERR_STATE (also raised by the binding for a closed model)"""


class LimitError(Error):
    """OLG_ERR_LIMIT"""


class CallbackError(Error):
    """OLG_ERR_CALLBACK: a callback reported a failure"""


class TypeMismatchError(Error):
    """OLG_ERR_TYPE"""


class ExportError(Error, RuntimeError):
    """onnxlegal.torch.export could not export the model; the message says what and where
    (every error of the torch front end, the walk's included, is one). A RuntimeError too, as
    it was before it joined onnxlegal.Error. status, status_name and function are None: the
    cause, when it was a library call, is __cause__.

    diagnostics holds the library's findings (dicts with severity, code, node, op, opset,
    message), report the export report gathered so far."""

    def __init__(self, message, diagnostics=(), report=None):
        Exception.__init__(self, message)
        self.status = self.status_name = self.function = None
        self.diagnostics = list(diagnostics)
        self.report = report

    # the text as raised (export appends to args[0] for ONNX_ATEN_FALLBACK)
    message = property(lambda self: str(self.args[0]) if self.args else "")
    __str__ = Exception.__str__


ERRORS = {
    ERR_NOMEM: NoMemoryError, ERR_INVALID_ARG: InvalidArgumentError, ERR_IO: IOFailureError,
    ERR_PARSE: ParseError, ERR_NOT_FOUND: NotFoundError, ERR_DUPLICATE: DuplicateError,
    ERR_UNSUPPORTED: UnsupportedError, ERR_INVALID_MODEL: InvalidModelError,
    ERR_RANGE: RangeError, ERR_STATE: StateError, ERR_LIMIT: LimitError,
    ERR_CALLBACK: CallbackError, ERR_TYPE: TypeMismatchError,
}

# ---- finding and loading the library --------------------------------------------------------

SONAME = "libonnxlegal.so.0"
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))
_SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(_PKG_DIR)))


def _env_library():
    """$ONNXLEGAL_LIBRARY: the library's path, or the folder holding libonnxlegal.so.0."""
    env = os.environ.get("ONNXLEGAL_LIBRARY")
    if env and os.path.isdir(env):
        return os.path.join(env, SONAME)
    return env


def _in_source_tree():
    """Whether this package is the source tree's bindings/python/onnxlegal (not an installed
    copy): the hint for a missing library differs."""
    return all(os.path.exists(os.path.join(_SOURCE_ROOT, p))
               for p in ("Makefile", os.path.join("include", "onnxlegal")))


def candidate_paths():
    """Where the library is looked for, in order: $ONNXLEGAL_LIBRARY (wins; a file, or a folder
    holding libonnxlegal.so.0), the package's own (beside it: shipped by `pip install`'s build
    step, or linked there by `make lib` in the source tree), $ONNXLEGAL_BUILD/lib, the source
    tree's build/lib, the installed library: the lib directory of the prefix the package is
    installed under (`make install` puts the package in PREFIX/lib/python3.X/...), the dynamic
    loader's search, ctypes.util.find_library, and pkg-config's libdir for onnxlegal."""
    env = _env_library()
    if env:
        return [env]  # an explicit choice is never silently replaced by another library
    paths = [os.path.join(_PKG_DIR, SONAME)]
    build = os.environ.get("ONNXLEGAL_BUILD")
    if build:
        paths.append(os.path.join(build, "lib", SONAME))
    paths.append(os.path.join(_SOURCE_ROOT, "build", "lib", SONAME))
    # PREFIX/lib/python3.X/{site,dist}-packages/onnxlegal -> PREFIX/lib
    prefix_lib = os.path.dirname(os.path.dirname(os.path.dirname(_PKG_DIR)))
    if os.path.basename(prefix_lib).startswith("lib"):
        paths.append(os.path.join(prefix_lib, SONAME))
    paths.append(SONAME)  # the dynamic loader's own search (an installed library)
    return paths


def system_paths():
    """The installed library as the system knows it, for when the loader's cache does not
    (e.g. /usr/local/lib before ldconfig ran): ctypes.util.find_library, then pkg-config's
    libdir (under PKG_CONFIG_SYSROOT_DIR when that is set)."""
    import ctypes.util
    import subprocess
    out = []
    found = ctypes.util.find_library("onnxlegal")
    if found:
        out.append(found)
    try:
        r = subprocess.run(["pkg-config", "--variable=libdir", "onnxlegal"],
                           capture_output=True, text=True, timeout=30)
        libdir = r.stdout.strip() if r.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        libdir = ""
    if libdir:
        root = os.environ.get("PKG_CONFIG_SYSROOT_DIR", "").rstrip("/")
        if root and not libdir.startswith(root + "/"):  # pkgconf applies it, pkg-config 0.29 not
            libdir = root + libdir
        out.append(os.path.join(libdir, SONAME))
    return out


def _then(first, more):
    """first's items, then (only if still asked for) those of more()."""
    yield from first
    if more is not None:
        yield from more()


def _not_loaded(path, env, missing, broken):
    """The ImportError's text: why, and the way out that fits (missing: the paths looked at
    that do not exist; broken: (path, loader's error) of those that exist but do not load)."""
    if broken:
        where, why = broken[0]
        text = ("onnxlegal: %s is there but cannot be loaded: %s. Rebuild it (`make lib` in the "
                "source tree) or reinstall the package; a library built elsewhere may lack its "
                "dependencies here (libprotobuf-c: `apt install libprotobuf-c1`)" % (where, why))
    elif path or env:
        text = ("onnxlegal: %s does not exist (%s). Point %s at libonnxlegal.so.0 or at the "
                "folder holding it" % (missing[0], "the path given" if path else
                                       "from ONNXLEGAL_LIBRARY=%s" % os.environ["ONNXLEGAL_LIBRARY"],
                                       "it" if path else "ONNXLEGAL_LIBRARY"))
    elif _in_source_tree():
        text = ("onnxlegal: %s is not built. Run `make lib` in %s (it builds build/lib/%s and "
                "links it beside the package), or set ONNXLEGAL_LIBRARY to the library or its "
                "folder" % (SONAME, _SOURCE_ROOT, SONAME))
    else:
        text = ("onnxlegal: this copy of the package (%s) carries no %s and none is installed. "
                "Reinstall it from the source tree with `pip install --no-build-isolation .` "
                "(its build step builds the library into the package; it needs a C compiler, "
                "make and protobuf-c), install the library (`make install`), or set "
                "ONNXLEGAL_LIBRARY to the library or its folder" % (_PKG_DIR, SONAME))
    return text + ". Looked at: " + "; ".join(missing + ["%s (%s)" % b for b in broken])


class Library:
    """The loaded shared library with every declared function set up. Functions the library
    does not export (an older build) are left out; calling one raises AttributeError naming it."""

    def __init__(self, path=None):
        missing, broken = [], []
        self.cdll = None
        env = None if path else _env_library()
        cands = [path] if path else candidate_paths()
        for cand in _then(cands, None if path or env else system_paths):
            if os.sep in cand and not os.path.exists(cand):
                missing.append(cand)
                continue
            try:
                self.cdll = ctypes.CDLL(cand)
                self.path = cand
                break
            except OSError as e:
                if os.sep in cand:
                    broken.append((cand, str(e)))
                else:  # the loader's own search found nothing by that name
                    missing.append("%s (the loader's search)" % cand)
        if self.cdll is None:
            raise ImportError(_not_loaded(path, env, missing, broken))
        self.missing = []
        for name, (restype, argtypes) in SIGNATURES.items():
            try:
                fn = getattr(self.cdll, name)
            except AttributeError:
                self.missing.append(name)
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)

    def __getattr__(self, name):
        if name.startswith("olg_"):
            raise AttributeError("%s is not exported by %s (a library older than the binding?)"
                                 % (name, getattr(self, "path", "libonnxlegal")))
        raise AttributeError(name)


lib = Library()


def _status_name(status):
    name = lib.olg_status_name(status)
    return name.decode() if name else "OLG_ERR_UNKNOWN"


def last_error():
    msg = lib.olg_last_error()
    return msg.decode("utf-8", "replace") if msg else ""


def check(status, function=None):
    """Raises the Error subclass for a non-OK status, with olg_last_error()'s message."""
    if status != OK:
        raise ERRORS.get(status, Error)(status, last_error(), function)
    return status


def call(name, *args):
    """lib.<name>(*args), raising an Error for a non-OK status."""
    return check(getattr(lib, name)(*args), name)


def enc(s):
    """A Python str (or bytes) as the C string the library copies."""
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    if not isinstance(s, str):
        raise TypeError("expected a str, got %s" % type(s).__name__)
    if "\0" in s:
        raise ValueError("a C string cannot hold NUL: %r" % s)
    return s.encode("utf-8")


def dec(b):
    return None if b is None else b.decode("utf-8", "replace")
