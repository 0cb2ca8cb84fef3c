"""Op table, part 4: TF.js's converter categories ``dynamic`` (non-max suppression, ``Where``,
``ListDiff``), ``hash_table``, ``sparse`` and ``string``."""

from __future__ import annotations

from typing import Any

from .. import ops as tf
from .op_spec import Params, Spec, spec

__all__ = ["DYNAMIC", "HASH_TABLE", "SPARSE", "STRING"]

_NMS_INPUTS = "boxes scores max_output_size# iou_threshold# score_threshold#"


def _where(p: Params) -> Any:
    condition = tf.cast(p.condition, "bool")
    result = tf.where_async(condition)
    condition.dispose()
    return result


def _fields(result: Any, *names: str) -> list[Any]:
    return [result[name] for name in names]


DYNAMIC: dict[str, Spec] = {
    "NonMaxSuppressionV2": spec(
        lambda p: tf.image.non_max_suppression_async(
            p.boxes, p.scores, p.max_output_size, p.iou_threshold
        ),
        "boxes scores max_output_size# iou_threshold#",
        dynamic=True,
    ),
    "NonMaxSuppressionV3": spec(
        lambda p: tf.image.non_max_suppression_async(
            p.boxes, p.scores, p.max_output_size, p.iou_threshold, p.score_threshold
        ),
        _NMS_INPUTS,
        dynamic=True,
    ),
    "NonMaxSuppressionV4": spec(
        lambda p: _fields(
            tf.image.non_max_suppression_padded_async(
                p.boxes,
                p.scores,
                p.max_output_size,
                p.iou_threshold,
                p.score_threshold,
                p.pad_to_max_output_size,
            ),
            "selected_indices",
            "valid_outputs",
        ),
        _NMS_INPUTS,
        pad_to_max_output_size="pad_to_max_output_size:bool",
        dynamic=True,
    ),
    "NonMaxSuppressionV5": spec(
        lambda p: _fields(
            tf.image.non_max_suppression_with_score_async(
                p.boxes,
                p.scores,
                p.max_output_size,
                p.iou_threshold,
                p.score_threshold,
                p.soft_nms_sigma,
            ),
            "selected_indices",
            "selected_scores",
        ),
        _NMS_INPUTS + " soft_nms_sigma#",
        dynamic=True,
    ),
    "Where": spec(_where, "condition", dtype="T:dtype", dynamic=True),
    "ListDiff": spec(lambda p: list(tf.setdiff1d_async(p.x, p.y)), "x y", dynamic=True),
}


def _table(p: Params, context: Any) -> Any:
    return context.resources.create(p.node.name, p.key_dtype, p.value_dtype).handle


def _import(p: Params, context: Any) -> Any:
    return context.resources.table_for(p.table_handle).import_(p.keys, p.values)


def _find(p: Params, context: Any) -> Any:
    return context.resources.table_for(p.table_handle).find(p.keys, p.default_value)


def _size(p: Params, context: Any) -> Any:
    return context.resources.table_for(p.table_handle).size()


_TABLE_ATTRS = {
    "shared_name": "shared_name:string",
    "use_node_name_sharing": "use_node_name_sharing:bool",
    "key_dtype": "key_dtype:dtype",
    "value_dtype": "value_dtype:dtype",
}
_IMPORT_ATTRS = {"t_in": "Tin:dtype", "t_out": "Tout:dtype"}

HASH_TABLE: dict[str, Spec] = {
    "HashTable": spec(_table, "", context=True, **_TABLE_ATTRS),
    "HashTableV2": spec(_table, "", context=True, **_TABLE_ATTRS),
    "LookupTableImport": spec(_import, "table_handle keys values", context=True, **_IMPORT_ATTRS),
    "LookupTableImportV2": spec(_import, "table_handle keys values", context=True, **_IMPORT_ATTRS),
    "LookupTableFind": spec(
        _find, "table_handle keys default_value", context=True, **_IMPORT_ATTRS
    ),
    "LookupTableFindV2": spec(
        _find, "table_handle keys default_value", context=True, **_IMPORT_ATTRS
    ),
    "LookupTableSize": spec(_size, "table_handle", context=True),
    "LookupTableSizeV2": spec(_size, "table_handle", context=True),
    "InitializeTable": spec(_import, "table_handle keys values", context=True, **_IMPORT_ATTRS),
    "InitializeTableV2": spec(_import, "table_handle keys values", context=True, **_IMPORT_ATTRS),
}

SPARSE: dict[str, Spec] = {
    "SparseFillEmptyRows": spec(
        lambda p: _fields(
            tf.sparse.sparse_fill_empty_rows(p.indices, p.values, p.dense_shape, p.default_value),
            "output_indices",
            "output_values",
            "empty_row_indicator",
            "reverse_index_map",
        ),
        "indices values dense_shape default_value",
        dynamic=True,
    ),
    "SparseReshape": spec(
        lambda p: _fields(
            tf.sparse.sparse_reshape(p.input_indices, p.input_shape, p.new_shape),
            "output_indices",
            "output_shape",
        ),
        "input_indices input_shape new_shape",
        dtype="T:dtype",
    ),
    "SparseSegmentMean": spec(
        lambda p: tf.sparse.sparse_segment_mean(p.data, p.indices, p.segment_ids),
        "data indices segment_ids",
    ),
    "SparseSegmentSum": spec(
        lambda p: tf.sparse.sparse_segment_sum(p.data, p.indices, p.segment_ids),
        "data indices segment_ids",
    ),
}

STRING: dict[str, Spec] = {
    "StaticRegexReplace": spec(
        lambda p: tf.string.static_regex_replace(p.input, p.pattern, p.rewrite, p.replace_global),
        "input",
        pattern="pattern:String",
        rewrite="rewrite:String",
        replace_global="replace_global:bool",
    ),
    "StringNGrams": spec(
        lambda p: _fields(
            tf.string.string_n_grams(
                p.data,
                p.data_splits,
                p.separator,
                p.n_gram_widths,
                p.left_pad,
                p.right_pad,
                p.pad_width,
                p.preserve_short_sequences,
            ),
            "n_grams",
            "n_grams_splits",
        ),
        "data data_splits",
        separator="separator:String",
        n_gram_widths="ngram_widths:number[]",
        left_pad="left_pad:String",
        right_pad="right_pad:String",
        pad_width="pad_width:number",
        preserve_short_sequences="preserve_short_sequences:bool",
    ),
    "StringSplit": spec(
        lambda p: _fields(
            tf.string.string_split(p.input, p.delimiter, p.skip_empty),
            "indices",
            "values",
            "shape",
        ),
        "input delimiter",
        skip_empty="skip_empty:bool",
    ),
    "StringToHashBucketFast": spec(
        lambda p: tf.string.string_to_hash_bucket_fast(p.input, p.num_buckets),
        "input",
        num_buckets="num_buckets:number",
    ),
}

#: The names a function body uses for these ops' outputs (``'split:values:0'``).
OUTPUT_NAMES = {
    "StringNGrams": ["ngrams", "ngrams_splits"],
    "StringSplit": ["indices", "values", "shape"],
}
