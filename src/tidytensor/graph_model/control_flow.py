"""Op table, part 5: TF.js's converter category ``control``: TensorFlow 1's frames
(``Switch``/``Merge``/``Enter``/``Exit``/``NextIteration``/``LoopCond``, run by the executor's
frame loop), TensorFlow 2's functional ``If``/``StatelessIf`` and ``While``/``StatelessWhile``
(their branches and bodies are the graph's ``library`` functions), ``TensorArray*`` and
``TensorList*``.

Every entry takes the execution context (see :class:`~.executor.ExecutionContext`): frames,
the functions, and the tensor arrays and lists of this execution, found by their handle
tensor's id.
"""

from __future__ import annotations

from typing import Any

from .. import ops as tf
from ..errors import InvalidArgumentError
from .op_spec import Params, Spec, spec
from .op_table_array import keep_or_clone
from .tensor_lists import TensorArray, TensorList

__all__ = ["CONTROL", "V1_CONTROL_FLOW_OPS"]

#: TensorFlow 1's control-flow ops: a graph with any of them runs in the executor's frame loop.
V1_CONTROL_FLOW_OPS = frozenset({"Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond"})


def _truthy(tensor: Any) -> bool:
    return bool(tensor.data_sync()[0])


def _if(p: Params, context: Any) -> Any:
    branch = p.then_branch if _truthy(p.cond) else p.else_branch
    return context.call_function(branch, p.args)


def _while(p: Params, context: Any) -> Any:
    """Runs ``body`` while ``cond`` holds, freeing each iteration's superseded values (not the
    loop's own arguments, not kept tensors)."""
    args = list(p.args)
    arg_ids = {t.id for t in args}

    def condition(values: list[Any], keep_ids: set[int]) -> bool:
        outputs = context.call_function(p.cond, values)
        flag = _truthy(outputs[0])
        for t in outputs:
            if not t.kept and t.id not in arg_ids and t.id not in keep_ids:
                t.dispose()
        return flag

    result = args
    flag = condition(result, set())
    while flag:
        previous = result
        result = context.call_function(p.body, result)
        result_ids = {t.id for t in result}
        for t in previous:
            if not t.kept and t.id not in arg_ids and t.id not in result_ids:
                t.dispose()
        flag = condition(result, result_ids)
    return result


def _switch(p: Params) -> Any:
    data = p.data if p.data.kept else tf.clone(p.data)
    return [None, data] if _truthy(p.pred) else [data, None]


def _merge(p: Params) -> Any:
    for t in p.tensors:
        if t is not None:
            return keep_or_clone(t)
    return None


def _enter(p: Params, context: Any) -> Any:
    context.enter_frame(p.frame_name)
    return keep_or_clone(p.tensor)


def _exit(p: Params, context: Any) -> Any:
    context.exit_frame()
    return keep_or_clone(p.tensor)


def _next_iteration(p: Params, context: Any) -> Any:
    context.next_iteration()
    return keep_or_clone(p.tensor)


# ------------------------------------------------------------------------- tensor arrays
def _container(p: Params, context: Any, kind: str) -> Any:
    """The tensor array or list whose handle the node reads."""
    if kind == "TensorArray":
        found = context.tensor_arrays.get(p.tensor_array_id.id)
    else:
        found = context.tensor_lists.get(p.tensor_list_id.id)
    if found is None:
        raise InvalidArgumentError(
            f"{p.node.op} ({p.node.name}): its handle names no {kind} of this execution"
        )
    return found


def _array(p: Params, context: Any) -> TensorArray:
    return _container(p, context, "TensorArray")


def _ta_new(p: Params, context: Any) -> Any:
    array = TensorArray(
        p.name,
        p.dtype,
        p.size,
        p.element_shape,
        p.identical_element_shapes,
        p.dynamic_size,
        p.clear_after_read,
    )
    context.tensor_arrays[array.id_tensor.id] = array
    return [array.id_tensor, tf.scalar(1.0)]


def _calling(method: str, *params: str, kind: str = "TensorArray") -> Any:
    """An op that calls ``method`` of its tensor array (or list) with ``params`` and passes the
    container's handle on."""

    def run(p: Params, context: Any) -> Any:
        container = _container(p, context, kind)
        getattr(container, method)(*(getattr(p, name) for name in params))
        return container.id_tensor

    return run


def _on_array(method: str, *params: str) -> Any:
    return _calling(method, *params, kind="TensorArray")


def _on_list(method: str, *params: str) -> Any:
    return _calling(method, *params, kind="TensorList")


# -------------------------------------------------------------------------- tensor lists
def _list(p: Params, context: Any) -> TensorList:
    return _container(p, context, "TensorList")


def _add_list(context: Any, tensor_list: TensorList) -> Any:
    context.tensor_lists[tensor_list.id_tensor.id] = tensor_list
    return tensor_list.id_tensor


def _tl_reserve(p: Params, context: Any) -> Any:
    limit = -1 if p.node.op == "TensorListReserve" else p.num_elements
    return _add_list(context, TensorList([], p.element_shape, p.element_dtype, limit))


_EL = {"element_dtype": "element_dtype:dtype"}
_TA = "tensor_array_id"

CONTROL: dict[str, Spec] = {
    "If": spec(
        _if,
        "cond args*@1",
        context=True,
        then_branch="then_branch:func",
        else_branch="else_branch:func",
    ),
    "StatelessIf": spec(
        _if,
        "cond args*@1",
        context=True,
        then_branch="then_branch:func",
        else_branch="else_branch:func",
    ),
    "While": spec(_while, "args*", context=True, cond="cond:func", body="body:func"),
    "StatelessWhile": spec(_while, "args*", context=True, cond="cond:func", body="body:func"),
    "LoopCond": spec(lambda p: keep_or_clone(p.pred), "pred"),
    "Switch": spec(_switch, "data pred"),
    "Merge": spec(_merge, "tensors*"),
    "Enter": spec(
        _enter,
        "tensor",
        context=True,
        frame_name="frame_name:string",
        is_constant="is_constant:bool",
    ),
    "Exit": spec(_exit, "tensor", context=True),
    "NextIteration": spec(_next_iteration, "tensor", context=True),
    "TensorArrayV3": spec(
        _ta_new,
        "size#",
        context=True,
        dtype="dtype:dtype",
        element_shape="element_shape:shape",
        dynamic_size="dynamic_size:bool",
        clear_after_read="clear_after_read:bool",
        identical_element_shapes="identical_element_shapes:bool",
        name="tensor_array_name:string",
    ),
    "TensorArrayWriteV3": spec(
        _on_array("write", "index", "tensor"), f"{_TA} index# tensor flow_in#", context=True
    ),
    "TensorArrayReadV3": spec(
        lambda p, c: _array(p, c).read(p.index), f"{_TA} index# flow_in#", context=True
    ),
    "TensorArrayGatherV3": spec(
        lambda p, c: _array(p, c).gather(p.indices, p.dtype),
        f"{_TA} indices## flow_in#",
        context=True,
        dtype="dtype:dtype",
        element_shape="element_shape:shape",
    ),
    "TensorArrayScatterV3": spec(
        _on_array("scatter", "indices", "tensor"),
        f"{_TA} indices## tensor flow_in#",
        context=True,
        dtype="T:dtype",
    ),
    "TensorArrayConcatV3": spec(
        lambda p, c: _array(p, c).concat(p.dtype),
        f"{_TA} flow_in#",
        context=True,
        dtype="dtype:dtype",
    ),
    "TensorArraySplitV3": spec(
        _on_array("split", "lengths", "tensor"),
        f"{_TA} tensor lengths## flow_in#",
        context=True,
        dtype="T:dtype",
    ),
    "TensorArraySizeV3": spec(
        lambda p, c: tf.scalar(_array(p, c).size(), "int32"), f"{_TA} flow_in#", context=True
    ),
    "TensorArrayCloseV3": spec(_on_array("clear_and_close"), _TA, context=True),
    "TensorListScatter": spec(
        lambda p, c: _add_list(c, TensorList.scatter(p.tensor, p.indices, p.element_shape, None)),
        "tensor indices## element_shape##",
        context=True,
        **_EL,
    ),
    "TensorListScatterV2": spec(
        lambda p, c: _add_list(
            c, TensorList.scatter(p.tensor, p.indices, p.element_shape, p.num_elements)
        ),
        "tensor indices## element_shape## num_elements#",
        context=True,
        **_EL,
    ),
    "TensorListGather": spec(
        lambda p, c: _list(p, c).gather(p.indices, p.element_dtype, p.element_shape),
        "tensor_list_id indices## element_shape##",
        context=True,
        **_EL,
    ),
    "TensorListGetItem": spec(
        lambda p, c: _list(p, c).get_item(p.index, p.element_shape, p.element_dtype),
        "tensor_list_id index# element_shape##",
        context=True,
        **_EL,
    ),
    "TensorListSetItem": spec(
        _on_list("set_item", "index", "tensor"), "tensor_list_id index# tensor", context=True, **_EL
    ),
    "TensorListReserve": spec(_tl_reserve, "element_shape## num_elements#", context=True, **_EL),
    "EmptyTensorList": spec(_tl_reserve, "element_shape## num_elements#", context=True, **_EL),
    "TensorListFromTensor": spec(
        lambda p, c: _add_list(
            c, TensorList.from_tensor(p.tensor, p.element_shape, p.element_dtype)
        ),
        "tensor element_shape##",
        context=True,
        **_EL,
    ),
    "TensorListStack": spec(
        lambda p, c: _list(p, c).stack(p.element_shape, p.element_dtype),
        "tensor_list_id element_shape##",
        context=True,
        **_EL,
    ),
    "TensorListSplit": spec(
        lambda p, c: _add_list(c, TensorList.split(p.tensor, p.lengths, p.element_shape)),
        "tensor element_shape## lengths##",
        context=True,
        **_EL,
    ),
    "TensorListConcat": spec(
        lambda p, c: _list(p, c).concat(p.element_dtype, p.element_shape),
        "tensor_list_id",
        context=True,
        element_shape="element_shape:shape",
        **_EL,
    ),
    "TensorListConcatV2": spec(
        lambda p, c: _list(p, c).concat(p.element_dtype, p.element_shape),
        "tensor_list_id",
        context=True,
        element_shape="element_shape:shape",
        **_EL,
    ),
    "TensorListPopBack": spec(
        lambda p, c: _list(p, c).pop_back(p.element_shape, p.element_dtype),
        "tensor_list_id element_shape##",
        context=True,
        **_EL,
    ),
    "TensorListPushBack": spec(
        _on_list("push_back", "tensor"), "tensor_list_id tensor", context=True, **_EL
    ),
    "TensorListLength": spec(
        lambda p, c: tf.scalar(_list(p, c).size(), "int32"), "tensor_list_id", context=True
    ),
    "TensorListResize": spec(
        lambda p, c: _add_list(c, _list(p, c).resize(p.size)),
        "tensor_list_id size#",
        context=True,
    ),
}
