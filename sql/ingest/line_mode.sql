-- line_mode: how irw reads a TREC file line by line, as temp macros shared by stage_fields.sql
-- (every line) and ir_metadata.sql (the head of a run), so the two cannot read a line differently.
-- Grain: trec_lines is a table macro, one row per line of the file (blank lines read as NULL), in
-- file order; trec_fields and is_trec_data are scalar macros over one line, literal_path over a path.
-- Inputs: none (created per connection before a file is read).
-- Why line mode: DuckDB's CSV sniffer silently merges TREC lines; one VARCHAR column with a
-- delimiter no accepted file holds (chr(1)), no quoting and no sniffing reads each line as written.
-- chr(1) and CR: a line holding chr(1) reads as two columns (strict mode refuses that, but a chr(1)
-- just before the line end was silently dropped), and DuckDB refuses a file mixing CR LF and LF
-- line ends. So warehouse/ingestion/files.py refuses, by line, every line holding chr(1) or a CR that does
-- not end it before DuckDB reads the file, and reads a file with mixed line ends from a copy with
-- LF line ends: here a CR is only ever part of a CR LF line end DuckDB strips.
-- trec_eval: fields are separated by any run of spaces or tabs; a line whose
-- first field starts with '#' is a comment (trec_eval 10 skips these); '#' inside a field is data
-- (docids like msmarco_v2.1_doc_50_2286987788#13_3087841662).
-- Measured on 7M lines: string_split + list_filter 2.7 s, a regex split 7-8 s.
-- literal_path: a path as DuckDB's readers take the one file it names. They read `*`, `?` and `[`
-- as a pattern (`s*.txt` read every `s...txt` beside it); a class of one character ([*]) matches
-- that character alone. A path without them is unchanged. warehouse/ingestion/files.py streams a
-- file so named through Python instead (the escape fails where a backslash is in the path or in
-- a name beside it), so this keeps the read of several files at once (sql/oneshot/stage_runs.sql)
-- to the files named, and an error there sends them to be read one by one.
create or replace temp macro literal_path(file_path) as
    regexp_replace(file_path, '([*?\[])', '[\1]', 'g');

create or replace temp macro trec_lines(file_path, file_compression) as table
    select line
    from read_csv(
        literal_path(file_path),
        columns = {'line': 'VARCHAR'},
        delim = chr(1),
        quote = '',
        escape = '',
        header = false,
        auto_detect = false,
        strict_mode = true,
        compression = file_compression
    );

create or replace temp macro trec_fields(line) as
    list_filter(string_split(replace(replace(line, chr(13), ' '), chr(9), ' '), ' '), lambda x: x <> '');

-- a blank line has no fields (NULL for an empty line, which DuckDB reads as NULL)
create or replace temp macro is_trec_data(fields) as
    len(fields) > 0 and not starts_with(fields[1], '#');
