-- migrations listing: the schema migrations a warehouse has applied, for `irw migrate` and
-- Warehouse.migrations(). Grain: one row per applied migration (sql/schema/NNN_*.sql).
-- Inputs: irw_schema.
-- trec_eval: none (bookkeeping).
with final as (
    select
        version,
        name,
        applied_at
    from irw_schema
)

select * from final
order by version
