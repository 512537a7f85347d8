-- Schema version 23: the trec_eval name and description of every SetF key, as the registry gives
-- them (warehouse/evaluation/measures.py). 012 renamed `SetF(beta=0.5)`, which held set_F.0.25's
-- values, to `SetF(beta=0.25)`, and left its measures row's trec_name (`set_F`, trec_eval's set_F.1)
-- and description (the textbook beta) as they were: `irw sql` and an export named another trec_eval
-- measure beside the right values (an upgrade walk). An evaluation writes the registry's row again
-- (eval/register_measures.sql); this writes it for the keys no evaluation has asked for since.
-- Grain: one row of measures per SetF key of one parameter.
-- Inputs: measures.
-- trec_eval: SetF(beta=x) is set_F.x, printed set_F_x (set_F at x = 1, trec_eval's default).
-- Written to run again (a test re-applies migrations from an earlier version).
update measures
set trec_name = case
        when measure = 'SetF(beta=1)' then 'set_F'
        else 'set_F_' || replace(replace(measure, 'SetF(beta=', ''), ')', '')
    end,
    description = 'F measure of the retrieved set, (1 + x) P R / (x P + R): SetF(beta=x), as ir_measures '
        || 'reads it, is trec_eval''s set_F.x (x is the textbook beta squared).'
where measure like 'SetF(beta=%)'
  and measure not like '%,%';
