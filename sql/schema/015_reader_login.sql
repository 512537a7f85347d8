-- Schema version 15: the login of the role `irw sql` runs user SQL as on a PostgreSQL warehouse.
-- Grain: one row, the role's name and its password (made by warehouse/engines/postgres.py _grant_reader;
-- read by it and by warehouse/store/adhoc.py). Inputs: none.
-- trec_eval: not a measure.
-- Why: user SQL runs in a session of its own whose login role can only read, so that no
-- set_config('role', ...) or RESET ROLE in it regains a writer's powers (README, "A shared
-- warehouse"). Only the warehouse's owner reads this table: no role is granted it, and irw
-- revokes what default privileges gave others. It is not data: export and copy leave it out.
-- A DuckDB warehouse has no server roles: the table is PostgreSQL's only.
-- Written to run again (a test re-applies migrations from an earlier version).
-- irw: postgres only (see the header)
create table if not exists irw_reader_login (
    role_name   varchar primary key,
    password    varchar not null
);
