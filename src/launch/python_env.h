/* Python programs as UEs (docs/python.md): what the openscc.rcce binding finds in their environment. */
#ifndef OPENSCC_LAUNCH_PYTHON_ENV_H
#define OPENSCC_LAUNCH_PYTHON_ENV_H

/* OPENSCC_LIBRCCE names rccerun's librcce.so and PYTHONPATH starts with its
 * Python package, unless the user set them.  Called before the UEs start. */
void launch_python_env(void);

#endif
