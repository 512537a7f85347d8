"""Downloads the public files the README and docs/quickstart.md run their commands on, laid out as
those pages expect, each pinned to a commit and checked by its sha256 before anything is written.

    python scripts/fetch_data.py dl19 [DIR]              TREC DL 2019 passage: DIR/qrels.dl19-passage.txt
                                                         and DIR/runs/run.dl19.NAME.txt (six runs)
    python scripts/fetch_data.py multi-collection [DIR]  three systems x four collections as their
                                                         publisher keeps them: DIR/runs/SYSTEM/
                                                         trec_results_COLLECTION.txt and DIR/qrels/

DIR defaults to the set's name. The qrels come from castorini/anserini-tools and the runs from the
history of castorini/rank_llm (the files were removed from its tip in 2024, so only a commit URL
reaches them), through raw.githubusercontent.com, or through IRW_DATA_MIRROR: a base URL (https://
or file://) under which OWNER/REPO/COMMIT/PATH resolves as on raw.githubusercontent.com.

Whole or nothing: every file is downloaded into a temporary folder and checked (size and sha256)
before the first is moved into DIR (made then); a file already in DIR with the expected bytes is
kept, one with other bytes is an error, never overwritten. Standard library only, so it runs before irw is
installed. Exit codes: 0 done, 1 a download or a check failed (nothing written), 2 usage.
"""
from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import NamedTuple

RAW = "https://raw.githubusercontent.com"
ANSERINI_TOOLS = "castorini/anserini-tools/5b819c1a45c8a0a3ec9426f476694f44a29dfaf3"
RANK_LLM_DL19 = "castorini/rank_llm/eb4ca3de077ba4ce99ffca17569c674fb0519d22"
RANK_LLM_MULTI = "castorini/rank_llm/8ad23b982320c54ecb6e0a19191b6eca19c804a6"


class Source(NamedTuple):
    target: str  # where it goes, under DIR
    repository: str  # OWNER/REPO/COMMIT
    path: str  # in the repository at that commit
    size: int
    sha256: str


def _dl19_run(name: str, size: int, sha256: str) -> Source:
    return Source(f"runs/run.dl19.{name}.txt", RANK_LLM_DL19, f"retrieve_results/{name}/trec_results_dl19.txt",
                  size, sha256)


def _multi_run(system: str, collection: str, size: int, sha256: str) -> Source:
    path = f"{system}/trec_results_{collection}.txt"
    return Source(f"runs/{path}", RANK_LLM_MULTI, f"retrieve_results/{path}", size, sha256)


def _qrels(target: str, file: str, size: int, sha256: str) -> Source:
    return Source(target, ANSERINI_TOOLS, f"qrels/{file}", size, sha256)


SETS: dict[str, list[Source]] = {
    "dl19": [
        _qrels("qrels.dl19-passage.txt", "qrels.dl19-passage.txt", 187092,
               "8a1f10d550732e4cd91d7fc49846a3784de4040972f583e69285a88f3c5fee92"),
        _dl19_run("BM25", 190529, "cbada2e4f710f8cafb8f1fd54e2289011b3273cdc044adb2380af21f63a6c861"),
        _dl19_run("BM25_RM3", 191863, "fd1b5b6358731eb82a42f240b27e2ec061b087a64dff8d61e9bc4f4e61175325"),
        _dl19_run("D_BERT_KD_TASB", 190741, "194ac7678312edbbd9aeb322e5b00fac63ecf081fccc2dd88e4c0dd2d8fc255e"),
        _dl19_run("OPEN_AI_ADA2", 193174, "e0e480ce3dc8673b56a457b885d8be1879704ab00d371b4cbadca3ac802ecc39"),
        _dl19_run("REP_LLAMA", 1415843, "e20af423fe0f9c165553a11de621968eae98784b9a7ac12b7f530382dcefc71b"),
        _dl19_run("SPLADE_P_P_ENSEMBLE_DISTIL", 147985,
                  "5e09e4219740fd9b2a57637fccf6d00932c938c47a07b97ce0852c0b2596a4e1"),
    ],
    "multi-collection": [
        _qrels("qrels/qrels.beir-v1.0.0-trec-covid.test.txt", "qrels.beir-v1.0.0-trec-covid.test.txt", 1047107,
               "0d94dcea5bc3b44a64a1f9b1430f7672fae39fad1c980d581b92890ab0448713"),
        _qrels("qrels/qrels.beir-v1.0.0-trec-news.test.txt", "qrels.beir-v1.0.0-trec-news.test.txt", 669359,
               "81ad5aba09051e0e79ac011a66a23e05bc62c32a2f9e8c10894e51869b2868c2"),
        _qrels("qrels/qrels.dl21-passage.txt", "qrels.dl21-passage.txt", 433887,
               "15d1c6e8b13fd665dd043c43213e331452213ddc70f70b8522600bcce64db427"),
        _multi_run("BM25", "covid", 204370, "529ffad57fae3c8a363e332f5954c975d32e21070e851506850a5f4db0fcb223"),
        _multi_run("BM25", "dl21", 347951, "e916d3e65cc6ae930e9e9a2cf9245f5f09f44733c042c52fa353b968a72f0b98"),
        _multi_run("BM25", "dl22", 503425, "10824d70521ec14adf6e00233f3338a3426f57895283900b3e9d4c51863b0856"),
        _multi_run("BM25", "news", 390316, "4f78a1fd71147b84c6591a14723a5d24fb096d3632c7d1539e5e2abbcee13dad"),
        _multi_run("BM25_RM3", "covid", 207451, "4d7d3f1ce41eb1a344b05a80705d252c5d81080eb13749e33c506ffadcf62cec"),
        _multi_run("BM25_RM3", "dl21", 347048, "4baffac8719d54c2c2fa9fa9476c447d05ba3e22c098c45e6523e65feea8dfb6"),
        _multi_run("BM25_RM3", "dl22", 503886, "93c9662416f4b5a83d0c320c90619a30fc595dd8cf53a27fd1d292f7d97b4794"),
        _multi_run("BM25_RM3", "news", 391639, "774faafa5665e1886912d98c0649d81050c4c2997284902941df87f16d0db3d5"),
        _multi_run("SPLADE_P_P_ENSEMBLE_DISTIL", "covid", 168645,
                   "5282531ace8ccf22d3992af0475a7eed4b9c0f81419e3ce23374690c83acf2e4"),
        _multi_run("SPLADE_P_P_ENSEMBLE_DISTIL", "dl21", 312606,
                   "872095edf0397568f3bcbf0aa70b990750fe8d93f18c28a66f8d3cad4ace5787"),
        _multi_run("SPLADE_P_P_ENSEMBLE_DISTIL", "dl22", 454452,
                   "36949b00ff34340f047e478774b6287ce444cfb8fbac3177897e1ee51fcce513"),
        _multi_run("SPLADE_P_P_ENSEMBLE_DISTIL", "news", 343746,
                   "f097a8819e2c35b092a10c5af29d4afe72b3f3c07f8c2ff659be34262385af21"),
    ],
}

NEXT = {  # the page whose commands run in the folder
    "dl19": "README.md, \"Seven commands on real files\"",
    "multi-collection": "docs/quickstart.md, \"A warehouse of several collections\"",
}


class FetchError(Exception):
    pass


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _problem(path: Path, source: Source) -> str | None:
    size = path.stat().st_size
    if size != source.size:
        return f"{size:,} bytes, not the {source.size:,} expected"
    if (digest := _sha256(path)) != source.sha256:
        return f"sha256 {digest[:12]}, not the {source.sha256[:12]} expected"
    return None


def _download(url: str, into: Path) -> None:
    try:
        with urllib.request.urlopen(url, timeout=60) as response, into.open("wb") as out:
            shutil.copyfileobj(response, out)
    except (urllib.error.URLError, OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        raise FetchError(f"{url}: {reason}") from None


def fetch(name: str, folder: Path, mirror: str) -> list[str]:
    """Puts the set's files into folder; returns what it did, a line per file."""
    sources = SETS[name]
    done: list[str] = []
    wanted: list[Source] = []
    for source in sources:
        there = folder / source.target
        if there.exists():
            if (problem := _problem(there, source)) is not None:
                raise FetchError(f"{there} is there already with other bytes ({problem}); move it away and run "
                                 "the command again")
            done.append(f"kept {there} (the expected bytes)")
        else:
            wanted.append(source)
    if not wanted:
        return done
    # staged apart, so that a failed download leaves no folder behind either
    with tempfile.TemporaryDirectory(prefix="irw-fetch-") as staging:
        staged = []
        for source in wanted:
            url = f"{mirror.rstrip('/')}/{source.repository}/{source.path}"
            into = Path(staging) / source.target
            into.parent.mkdir(parents=True, exist_ok=True)
            print(f"downloading {url}", file=sys.stderr)
            _download(url, into)
            if (problem := _problem(into, source)) is not None:
                raise FetchError(f"{url}: {problem}; nothing was written")
            staged.append((into, source))
        for into, source in staged:
            there = folder / source.target
            there.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(into, there)  # across file systems too
            done.append(f"wrote {there} ({source.size:,} bytes, sha256 checked)")
    return done


def main(argv: list[str]) -> int:
    usage = __doc__.strip().split("\n\n")[1]
    if argv[:1] in (["-h"], ["--help"]):
        print(usage)
        return 0
    if len(argv) not in (1, 2) or argv[0] not in SETS:
        print(usage, file=sys.stderr)
        given = f"no set {argv[0]!r}: " if argv and argv[0] not in SETS else ""
        print(f"\nfetch_data.py: {given}give a set ({', '.join(SETS)}) and optionally a folder", file=sys.stderr)
        return 2
    name = argv[0]
    folder = Path(argv[1] if len(argv) == 2 else name)
    mirror = os.environ.get("IRW_DATA_MIRROR") or RAW
    try:
        lines = fetch(name, folder, mirror)
    except FetchError as error:
        print(f"fetch_data.py: {error}", file=sys.stderr)
        return 1
    for line in lines:
        print(line, file=sys.stderr)
    print(f"next: cd {shlex.quote(str(folder))} and run the commands of {NEXT[name]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
