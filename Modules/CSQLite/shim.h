#ifndef SHELF_CSQLITE_SHIM_H
#define SHELF_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro that casts -1 to a function pointer, which Swift
 * cannot import. Binding with it makes SQLite copy the bytes before the call
 * returns, so Swift buffers only need to live for the duration of the call. */
static inline sqlite3_destructor_type shelf_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
