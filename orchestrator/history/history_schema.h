/* The history's schema version: the number of migration steps, each with
 * its SQLite form (history_migrations[], history_db.c) and its PostgreSQL
 * form (history_migrations_pg[], history_migrate_pg.c). Apart from
 * history_db.h so the migrations of either store read it without reading
 * the database module that calls them. */
#ifndef HRR_HISTORY_HISTORY_SCHEMA_H
#define HRR_HISTORY_HISTORY_SCHEMA_H

#define HISTORY_SCHEMA_VERSION 12

#endif
