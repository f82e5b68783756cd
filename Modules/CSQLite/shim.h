#ifndef SHELF_CSQLITE_SHIM_H
#define SHELF_CSQLITE_SHIM_H

#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro that casts -1 to a function pointer, which Swift
 * cannot import. Binding with it makes SQLite copy the bytes before the call
 * returns, so Swift buffers only need to live for the duration of the call. */
static inline sqlite3_destructor_type shelf_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

/* sqlite3_config is variadic, which Swift cannot call. Turning memory statistics
 * off spares every SQLite allocation and free a global mutex (SQLite counts bytes
 * for sqlite3_memory_used, which Shelf never asks for): a few percent of a bulk
 * pull. Only valid before SQLite initializes; afterwards it returns SQLITE_MISUSE
 * and changes nothing. */
static inline int shelf_sqlite_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

#endif
