/* Python programs as UEs (docs/python.md): what the openscc.rcce binding finds in their environment. */
#ifndef OPENSCC_LAUNCH_PYTHON_ENV_H
#define OPENSCC_LAUNCH_PYTHON_ENV_H

/* OPENSCC_LIBRCCE names rccerun's librcce.so (unless the user set it), and
 * PYTHONPATH starts with its Python package (the user's entries after it).
 * Called before the UEs start. */
void launch_python_env(void);

#endif
