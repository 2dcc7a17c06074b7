/* runtime._fastcall: the per-call path of a staged function (runtime/trace.py, Function) for
 * its most frequent call, the same signature as the last call, in C.
 *
 * Why C: a call of a small compiled graph (f(x) = x + 1 on 16 floats) costs about 0.8 us in
 * Numba's compiled code, and the Python per-call path in front of it (a frame, *args and
 * **kwargs, the checks of dtype, rank and flags) about 0.5 us more: 1.3 us against
 * numba.njit's 0.9 us (tools/bench_workloads.py -g scalar, piecewise16). This object takes
 * that call with no Python frame: about 0.95 us (see `FastCall` in runtime/trace.py). With
 * more arguments the Python path costs more (the fast key built in Python: 1.3 us of
 * f(x, lr) = x - lr * x's 2.3 us on Numba, 1 us of a model's method reading two weights).
 *
 * What it does, and nothing more: when called with positional arguments only, no graph
 * being built and functions not run eagerly, and the arguments have the fast key of the
 * last signature the Python path found in the fast table (`remember(args, key, record)`:
 * per argument, an exact ndarray of the same dtype, by identity, and rank; a float, or an
 * int of at most int_bound, where the key makes the number an input; a Python scalar of
 * the same exact type and equal value where it is a constant; the same object, held by a
 * weak reference, where the key holds it by identity), it calls that signature's entry:
 * for one array that is C-contiguous, aligned and writeable, the compiled code itself
 * (`unchecked`, which assumes that) if there is one, else `entry`. A NumPy scalar argument
 * is not remembered (its calls take the general path). An exception from the entry goes
 * to `failed(error, record, args)` (Python: it retraces, translates or re-raises).
 * Everything else is `general(*args, **kwargs)`: the Python path, which also calls
 * `remember`, and `forget` whenever the fast table drops or replaces a record.
 *
 * Built by setup.py as an optional extension: where it is missing (no C compiler),
 * runtime/trace.py takes every call on its Python path, with the same results.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarraytypes.h>
#include <math.h>

/* Set once by setup(): numpy.ndarray, runtime.graph's list of graphs being built, the
   items of fast keys that mark a Python number input and an object (runtime/trace.py:
   _SYMBOLIC, _OBJECT), and the bound of an int input (specialise.INT_INPUT_BOUND). */
static PyTypeObject *ndarray_type = NULL;
static PyObject *building = NULL;
static PyObject *symbolic = NULL;
static PyObject *object_mark = NULL;
static long long int_bound = 0;
/* Set by set_eager() (runtime.trace.run_functions_eagerly). */
static int run_eagerly = 0;

/* What one position of the remembered signature takes: the same item of the fast key as
   the argument it was remembered from. */
enum {
    ARG_ARRAY,    /* an exact ndarray of this dtype (by identity) and rank */
    ARG_FLOAT,    /* a float, an input of the trace */
    ARG_INT,      /* an int of at most int_bound, an input of the trace */
    ARG_VALUE,    /* a Python scalar of this exact type, equal to this value (a constant) */
    ARG_OBJECT,   /* this object (a weak reference to it): the key holds it by identity */
};

typedef struct {
    int kind;
    int ndim;             /* ARG_ARRAY's rank */
    PyObject *object;     /* ARG_ARRAY: the dtype; ARG_VALUE: the value; ARG_OBJECT: a weakref */
} ArgCheck;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *general;      /* general(*args, **kwargs): the Python per-call path */
    PyObject *failed;       /* failed(error, record, args) for an entry's exception */
    /* The last signature: per argument a check, and its record in the fast table,
       (entry, unchecked, translate); NULL record: none. */
    Py_ssize_t nargs;
    ArgCheck *checks;
    PyObject *record;
    PyObject *entry;        /* record[0] */
    PyObject *unchecked;    /* record[1] for one array, or NULL where it is None */
} FastCall;

static void
free_checks(ArgCheck *checks, Py_ssize_t n)
{
    if (checks == NULL) {
        return;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_XDECREF(checks[i].object);
    }
    PyMem_Free(checks);
}

/* Do `args` have the remembered signature? No Python code runs here (the values compared
   are of Python's own scalar types). */
static int
fastcall_matches(FastCall *self, PyObject *const *args)
{
    for (Py_ssize_t i = 0; i < self->nargs; i++) {
        PyObject *a = args[i];
        ArgCheck *check = &self->checks[i];
        switch (check->kind) {
        case ARG_ARRAY:
            if (Py_TYPE(a) != ndarray_type
                    || (PyObject *)PyArray_DESCR((PyArrayObject *)a) != check->object
                    || PyArray_NDIM((PyArrayObject *)a) != check->ndim) {
                return 0;
            }
            break;
        case ARG_FLOAT:
            if (!PyFloat_CheckExact(a)) {
                return 0;
            }
            break;
        case ARG_INT: {
            int overflow;
            if (!PyLong_CheckExact(a)) {
                return 0;
            }
            long long value = PyLong_AsLongLongAndOverflow(a, &overflow);
            if (overflow || value < -int_bound || value > int_bound) {
                return 0;
            }
            break;
        }
        case ARG_VALUE:
            if (a != check->object) {
                if (Py_TYPE(a) != Py_TYPE(check->object)) {
                    return 0;
                }
                int equal = PyObject_RichCompareBool(a, check->object, Py_EQ);
                if (equal != 1) {
                    if (equal < 0) {
                        PyErr_Clear();
                    }
                    return 0;
                }
                /* (-0.0 equals 0.0 but is another constant: the key tells them apart.) */
                if (PyFloat_CheckExact(a) && !signbit(PyFloat_AS_DOUBLE(a))
                        != !signbit(PyFloat_AS_DOUBLE(check->object))) {
                    return 0;
                }
            }
            break;
        case ARG_OBJECT: {
            /* (A dead object's weakref gives None, which is never an object position.) */
            PyObject *referent = PyWeakref_GET_OBJECT(check->object);
            if (referent != a || referent == Py_None) {
                return 0;
            }
            break;
        }
        default:
            return 0;
        }
    }
    return 1;
}

static PyObject *
fastcall_call_entry(FastCall *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *entry = self->unchecked != NULL
        && PyArray_ISCARRAY((PyArrayObject *)args[0]) ? self->unchecked : self->entry;
    /* (Held for the call: the entry may run code that calls remember or forget.) */
    PyObject *record = self->record;
    Py_INCREF(record);
    Py_INCREF(entry);
    PyObject *result = PyObject_Vectorcall(entry, args, nargs, NULL);
    Py_DECREF(entry);
    if (result == NULL && PyErr_ExceptionMatches(PyExc_Exception)) {
        PyObject *type, *error, *traceback;
        PyErr_Fetch(&type, &error, &traceback);
        PyErr_NormalizeException(&type, &error, &traceback);
        if (traceback != NULL) {
            PyException_SetTraceback(error, traceback);
        }
        PyObject *call_args = PyTuple_New(nargs);
        if (call_args != NULL) {
            for (Py_ssize_t i = 0; i < nargs; i++) {
                Py_INCREF(args[i]);
                PyTuple_SET_ITEM(call_args, i, args[i]);
            }
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
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs == self->nargs && kwnames == NULL && self->record != NULL && !run_eagerly
            && PyList_GET_SIZE(building) == 0 && fastcall_matches(self, args)) {
        return fastcall_call_entry(self, args, nargs);
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

/* Installs a signature (`checks` of `nargs` arguments, NULL: none) and its record, and
   releases the last one's, after: a decref may run code that calls remember or forget. */
static void
fastcall_install(FastCall *self, ArgCheck *checks, Py_ssize_t nargs, PyObject *record,
                 PyObject *entry, PyObject *unchecked)
{
    ArgCheck *old_checks = self->checks;
    Py_ssize_t old_nargs = self->nargs;
    PyObject *old_record = self->record, *old_entry = self->entry;
    PyObject *old_unchecked = self->unchecked;
    Py_XINCREF(record);
    Py_XINCREF(entry);
    Py_XINCREF(unchecked);
    self->checks = checks;
    self->nargs = nargs;
    self->record = record;
    self->entry = entry;
    self->unchecked = unchecked;
    free_checks(old_checks, old_nargs);
    Py_XDECREF(old_record);
    Py_XDECREF(old_entry);
    Py_XDECREF(old_unchecked);
}

static void
fastcall_forget_record(FastCall *self)
{
    fastcall_install(self, NULL, -1, NULL, NULL, NULL);
}

/* The check of argument `a` whose fast key items are (first, second), into `check`;
   0 where it has none (a NumPy scalar: calls with one take the general path). */
static int
make_check(PyObject *a, PyObject *first, PyObject *second, ArgCheck *check)
{
    if (Py_TYPE(a) == ndarray_type) {
        check->kind = ARG_ARRAY;
        check->ndim = PyArray_NDIM((PyArrayObject *)a);
        check->object = (PyObject *)PyArray_DESCR((PyArrayObject *)a);
        Py_INCREF(check->object);
    }
    else if (second == symbolic && (PyFloat_CheckExact(a) || PyLong_CheckExact(a))) {
        check->kind = PyFloat_CheckExact(a) ? ARG_FLOAT : ARG_INT;
    }
    else if (first == object_mark) {
        check->kind = ARG_OBJECT;
        check->object = PyWeakref_NewRef(a, NULL);
        if (check->object == NULL) {
            PyErr_Clear();
            return 0;
        }
    }
    else if (second == (PyObject *)Py_TYPE(a) && first == a) {
        check->kind = ARG_VALUE;
        check->object = a;
        Py_INCREF(a);
    }
    else {
        return 0;
    }
    return 1;
}

static PyObject *
fastcall_remember(FastCall *self, PyObject *args)
{
    PyObject *call_args, *key, *record;
    if (!PyArg_ParseTuple(args, "O!O!O!:remember", &PyTuple_Type, &call_args,
                          &PyTuple_Type, &key, &PyTuple_Type, &record)) {
        return NULL;
    }
    Py_ssize_t nargs = PyTuple_GET_SIZE(call_args);
    if (PyTuple_GET_SIZE(key) != 2 * nargs || PyTuple_GET_SIZE(record) != 3
            || PyTuple_GET_ITEM(record, 0) == Py_None) {
        PyErr_SetString(PyExc_ValueError, "remember(args, key, record): the fast key of args "
                        "(two items per argument), and its record (entry, unchecked, translate)");
        return NULL;
    }
    /* (Made apart, then installed: making a weakref may run code that calls forget.) */
    ArgCheck *checks = PyMem_Calloc(nargs > 0 ? nargs : 1, sizeof(ArgCheck));
    if (checks == NULL) {
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (!make_check(PyTuple_GET_ITEM(call_args, i), PyTuple_GET_ITEM(key, 2 * i),
                        PyTuple_GET_ITEM(key, 2 * i + 1), &checks[i])) {
            free_checks(checks, nargs);
            fastcall_forget_record(self);
            Py_RETURN_NONE;
        }
    }
    PyObject *unchecked = PyTuple_GET_ITEM(record, 1);
    if (unchecked == Py_None || nargs != 1 || checks[0].kind != ARG_ARRAY) {
        unchecked = NULL;
    }
    fastcall_install(self, checks, nargs, record, PyTuple_GET_ITEM(record, 0), unchecked);
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
    self->nargs = -1;
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
    for (Py_ssize_t i = 0; i < self->nargs; i++) {
        Py_VISIT(self->checks[i].object);
    }
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
     "remember(args, key, record): calls whose positional arguments have the fast key `key` "
     "of `args` take the record's entry (a NumPy scalar among them: none do)."},
    {"forget", (PyCFunction)fastcall_forget, METH_NOARGS,
     "forget(): no signature is remembered; calls take the general path."},
    {NULL}
};

static PyMemberDef fastcall_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(FastCall, vectorcall), READONLY, NULL},
    {NULL}
};

static PyTypeObject FastCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "runtime._fastcall.FastCall",
    .tp_doc = "FastCall(general, failed): the per-call path of a staged function "
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
    PyObject *ndarray, *building_list, *symbolic_mark, *object;
    long long bound;
    if (!PyArg_ParseTuple(args, "O!O!OOL:setup", &PyType_Type, &ndarray,
                          &PyList_Type, &building_list, &symbolic_mark, &object, &bound)) {
        return NULL;
    }
    Py_INCREF(ndarray);
    Py_XSETREF(ndarray_type, (PyTypeObject *)ndarray);
    Py_INCREF(building_list);
    Py_XSETREF(building, building_list);
    Py_INCREF(symbolic_mark);
    Py_XSETREF(symbolic, symbolic_mark);
    Py_INCREF(object);
    Py_XSETREF(object_mark, object);
    int_bound = bound;
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
     "setup(numpy.ndarray, building, symbolic, object, int_bound): the array type, the list "
     "of graphs being built (calls take the general path while it is not empty), the items "
     "of fast keys that mark a Python number input and an object, and the bound of an int "
     "input."},
    {"set_eager", module_set_eager, METH_O,
     "set_eager(flag): while true, calls take the general path (functions run eagerly)."},
    {NULL}
};

static struct PyModuleDef fastcall_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "runtime._fastcall",
    .m_doc = "The per-call path of a staged function, in C (runtime/_fastcall.c).",
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
