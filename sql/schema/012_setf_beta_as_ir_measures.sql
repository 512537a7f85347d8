-- Schema version 12: SetF(beta=b) means what ir_measures means by it, trec_eval's set_F.b: F over
-- the retrieved set, (1 + b) P R / (b P + R). Before, irw read b as the textbook beta and computed
-- set_F.(b*b) under that name, so a stored `SetF(beta=0.5)` holds set_F.0.25's values: its keys
-- are renamed to the name those values now have (`SetF(beta=0.25)`), everywhere a measure key is
-- kept (scores, evaluated, significance_results, measures). SetF(beta=1) is the same either way.
-- A key whose b*b has more than six decimals (which the name could not spell as irw spells it)
-- is deleted, with its scores: asked again, it is computed again.
-- Grain: one row per stored SetF key with b <> 1 (irw_setf_keys).
-- Inputs: measures (every measure key the warehouse holds scores for).
-- trec_eval: set_F.x is (x + 1) P R / (x P + R); ir_measures passes SetF's beta to it as x.
-- Renames go through a prefix so that no statement makes a key that another row still holds.
create temp table irw_setf_keys as
with named as (
    select
        measure as old_key,
        cast(replace(split_part(measure, '=', 2), ')', '') as double) as beta
    from measures
    where measure like 'SetF(beta=%)'
      and measure not like '%,%'
),

squared as (
    select
        old_key,
        cast(round(beta * beta * 1000000) as bigint) as micro,
        beta * beta * 1000000 - round(beta * beta * 1000000) as rest
    from named
    where beta <> 1
)

select
    old_key,
    'SetF(beta=' || cast(cast((micro - micro % 1000000) / 1000000 as bigint) as varchar)
    || case
        when micro % 1000000 = 0 then ''
        else '.' || rtrim(lpad(cast(micro % 1000000 as varchar), 6, '0'), '0')
    end || ')' as new_key,
    abs(rest) < 0.000001 and micro > 0 as exact
from squared;

delete from scores where measure in (select old_key from irw_setf_keys where not exact);
delete from evaluated where measure in (select old_key from irw_setf_keys where not exact);
delete from significance_results where measure in (select old_key from irw_setf_keys where not exact);
delete from measures where measure in (select old_key from irw_setf_keys where not exact);

update scores set measure = 'irw012:' || k.new_key
from irw_setf_keys as k
where k.exact and scores.measure = k.old_key;
update evaluated set measure = 'irw012:' || k.new_key
from irw_setf_keys as k
where k.exact and evaluated.measure = k.old_key;
update significance_results set measure = 'irw012:' || k.new_key
from irw_setf_keys as k
where k.exact and significance_results.measure = k.old_key;
update measures set measure = 'irw012:' || k.new_key
from irw_setf_keys as k
where k.exact and measures.measure = k.old_key;

update scores set measure = substr(measure, 8) where measure like 'irw012:%';
update evaluated set measure = substr(measure, 8) where measure like 'irw012:%';
update significance_results set measure = substr(measure, 8) where measure like 'irw012:%';
update measures set measure = substr(measure, 8) where measure like 'irw012:%';

drop table irw_setf_keys;
