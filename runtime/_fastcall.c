/* runtime._fastcall: the per-call path of a staged function (runtime/trace.py, Function) for
 * its most frequent call, one NumPy array, in C.
 *
 * Why C: a call of a small compiled graph (f(x) = x + 1 on 16 floats) costs about 0.8 us in
 * Numba's compiled code, and the Python per-call path in front of it (a frame, *args and
 * **kwargs, the checks of dtype, rank and flags) about 0.5 us more: 1.3 us against
 * numba.njit's 0.9 us (tools/bench_workloads.py -g scalar, piecewise16). This object takes
 * that call with no Python frame: about 0.95 us (see `FastCall` in runtime/trace.py).
 *
 * What it does, and nothing more: when called with one exact ndarray, no keywords, no
 * graph being built and functions not run eagerly, and the array's dtype (by identity) and
 * rank are those of the last one-array signature the Python path saw (`remember`), it calls
 * that signature's entry: the compiled code itself where the array is C-contiguous,
 * aligned and writeable (`unchecked`, which assumes that) if there is one, else `entry`.
 * An exception from the entry goes to `failed(error, record, args)` (Python: it retraces,
 * translates or re-raises). Everything else is `general(*args, **kwargs)`: the Python path,
 * which also calls `remember` and `forget`.
 *
 * Built by setup.py as an optional extension: where it is missing (no C compiler),
 * runtime/trace.py takes every call on its Python path, with the same results.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarraytypes.h>

/* Set once by setup(): numpy.ndarray, and runtime.graph's list of graphs being built. */
static PyTypeObject *ndarray_type = NULL;
static PyObject *building = NULL;
/* Set by set_eager() (runtime.trace.run_functions_eagerly). */
static int run_eagerly = 0;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *general;      /* general(*args, **kwargs): the Python per-call path */
    PyObject *failed;       /* failed(error, record, args) for an entry's exception */
    /* The last one-array signature: dtype, rank and its record in the fast table,
       (entry, unchecked, translate); NULL record: none. */
    PyObject *dtype;
    int ndim;
    PyObject *record;
    PyObject *entry;        /* record[0] */
    PyObject *unchecked;    /* record[1], or NULL where it is None */
} FastCall;

static PyObject *
fastcall_call_entry(FastCall *self, PyObject *const *args)
{
    PyObject *array = args[0];
    PyObject *entry = self->unchecked != NULL && PyArray_ISCARRAY((PyArrayObject *)array)
        ? self->unchecked : self->entry;
    /* (Held for the call: the entry may run code that calls remember or forget.) */
    PyObject *record = self->record;
    Py_INCREF(record);
    Py_INCREF(entry);
    PyObject *result = PyObject_Vectorcall(entry, args, 1, NULL);
    Py_DECREF(entry);
    if (result == NULL && PyErr_ExceptionMatches(PyExc_Exception)) {
        PyObject *type, *error, *traceback;
        PyErr_Fetch(&type, &error, &traceback);
        PyErr_NormalizeException(&type, &error, &traceback);
        if (traceback != NULL) {
            PyException_SetTraceback(error, traceback);
        }
        PyObject *call_args = PyTuple_New(1);
        if (call_args != NULL) {
            Py_INCREF(array);
            PyTuple_SET_ITEM(call_args, 0, array);
            result = PyObject_CallFunctionObjArgs(self->failed, error, record, call_args,
                                                  NULL);
            Py_DECREF(call_args);
        }
        Py_XDECREF(type);
        Py_XDECREF(error);
        Py_XDECREF(traceback);
    }
    Py_DECREF(record);
    return result;
}

static PyObject *
fastcall_vectorcall(FastCall *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (PyVectorcall_NARGS(nargsf) == 1 && kwnames == NULL && self->record != NULL
            && Py_TYPE(args[0]) == ndarray_type && !run_eagerly
            && PyList_GET_SIZE(building) == 0) {
        PyArrayObject *array = (PyArrayObject *)args[0];
        if ((PyObject *)PyArray_DESCR(array) == self->dtype
                && PyArray_NDIM(array) == self->ndim) {
            return fastcall_call_entry(self, args);
        }
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static void
fastcall_forget_record(FastCall *self)
{
    Py_CLEAR(self->record);
    Py_CLEAR(self->dtype);
    Py_CLEAR(self->entry);
    Py_CLEAR(self->unchecked);
}

static PyObject *
fastcall_remember(FastCall *self, PyObject *args)
{
    PyObject *dtype, *record;
    int ndim;
    if (!PyArg_ParseTuple(args, "OiO!:remember", &dtype, &ndim, &PyTuple_Type, &record)) {
        return NULL;
    }
    if (PyTuple_GET_SIZE(record) != 3 || PyTuple_GET_ITEM(record, 0) == Py_None) {
        PyErr_SetString(PyExc_ValueError, "remember: a record is (entry, unchecked, translate)");
        return NULL;
    }
    PyObject *entry = PyTuple_GET_ITEM(record, 0);
    PyObject *unchecked = PyTuple_GET_ITEM(record, 1);
    fastcall_forget_record(self);
    Py_INCREF(dtype);
    self->dtype = dtype;
    self->ndim = ndim;
    Py_INCREF(entry);
    self->entry = entry;
    if (unchecked != Py_None) {
        Py_INCREF(unchecked);
        self->unchecked = unchecked;
    }
    Py_INCREF(record);
    self->record = record;   /* (last: the call path tests it first) */
    Py_RETURN_NONE;
}

static PyObject *
fastcall_forget(FastCall *self, PyObject *Py_UNUSED(ignored))
{
    fastcall_forget_record(self);
    Py_RETURN_NONE;
}

static PyObject *
fastcall_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    PyObject *general, *failed;
    static char *keywords[] = {"general", "failed", NULL};
    if (ndarray_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "runtime._fastcall.setup() was not called");
        return NULL;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO:FastCall", keywords,
                                     &general, &failed)) {
        return NULL;
    }
    FastCall *self = (FastCall *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = (vectorcallfunc)fastcall_vectorcall;
    Py_INCREF(general);
    self->general = general;
    Py_INCREF(failed);
    self->failed = failed;
    return (PyObject *)self;
}

static int
fastcall_traverse(FastCall *self, visitproc visit, void *arg)
{
    Py_VISIT(self->general);
    Py_VISIT(self->failed);
    Py_VISIT(self->dtype);
    Py_VISIT(self->record);
    Py_VISIT(self->entry);
    Py_VISIT(self->unchecked);
    return 0;
}

static int
fastcall_clear(FastCall *self)
{
    Py_CLEAR(self->general);
    Py_CLEAR(self->failed);
    fastcall_forget_record(self);
    return 0;
}

static void
fastcall_dealloc(FastCall *self)
{
    PyObject_GC_UnTrack(self);
    fastcall_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef fastcall_methods[] = {
    {"remember", (PyCFunction)fastcall_remember, METH_VARARGS,
     "remember(dtype, ndim, record): calls with one array of this dtype and rank take the "
     "record's entry."},
    {"forget", (PyCFunction)fastcall_forget, METH_NOARGS,
     "forget(): no one-array signature is remembered; calls take the general path."},
    {NULL}
};

static PyMemberDef fastcall_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(FastCall, vectorcall), READONLY, NULL},
    {NULL}
};

static PyTypeObject FastCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "runtime._fastcall.FastCall",
    .tp_doc = "FastCall(general, failed): the one-array per-call path of a staged function "
              "(see runtime/_fastcall.c).",
    .tp_basicsize = sizeof(FastCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = fastcall_new,
    .tp_dealloc = (destructor)fastcall_dealloc,
    .tp_traverse = (traverseproc)fastcall_traverse,
    .tp_clear = (inquiry)fastcall_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(FastCall, vectorcall),
    .tp_methods = fastcall_methods,
    .tp_members = fastcall_members,
};

static PyObject *
module_setup(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *ndarray, *building_list;
    if (!PyArg_ParseTuple(args, "O!O!:setup", &PyType_Type, &ndarray,
                          &PyList_Type, &building_list)) {
        return NULL;
    }
    Py_INCREF(ndarray);
    Py_XSETREF(ndarray_type, (PyTypeObject *)ndarray);
    Py_INCREF(building_list);
    Py_XSETREF(building, building_list);
    Py_RETURN_NONE;
}

static PyObject *
module_set_eager(PyObject *Py_UNUSED(module), PyObject *flag)
{
    int value = PyObject_IsTrue(flag);
    if (value < 0) {
        return NULL;
    }
    run_eagerly = value;
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"setup", module_setup, METH_VARARGS,
     "setup(numpy.ndarray, building): the array type, and the list of graphs being built "
     "(calls take the general path while it is not empty)."},
    {"set_eager", module_set_eager, METH_O,
     "set_eager(flag): while true, calls take the general path (functions run eagerly)."},
    {NULL}
};

static struct PyModuleDef fastcall_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "runtime._fastcall",
    .m_doc = "The one-array per-call path of a staged function, in C (runtime/_fastcall.c).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__fastcall(void)
{
    if (PyType_Ready(&FastCallType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&fastcall_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&FastCallType);
    if (PyModule_AddObject(module, "FastCall", (PyObject *)&FastCallType) < 0) {
        Py_DECREF(&FastCallType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
