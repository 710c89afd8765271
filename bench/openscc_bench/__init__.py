"""The OpenSCC benchmark harness behind bench/run_bench.py (Python 3.11, stdlib only).

One module per concern:

    paths                where the repository, bench sources and results are
    progress             the progress log on stdout
    implementations      the compared implementations and the best MPI peer
    host                 host information recorded with every run
    building             compiling the benchmark programs
    processes            launchers; running one command with a timeout
    result_lines         the JSON result lines the programs print
    slots                result slots: repeats, medians, the median a target reads
    measurements         which result line a run should print and where it goes
    run_loop             the repeat -> job -> implementation round robin
    targets              the verdict of one target
    formatting           numbers, sizes, ratios and table cells
    markdown             the parts of a results page both groups share
    documents            the JSON documents' common fields; writing .json and .md
    foundation           the foundation group: tests, jobs, targets, document
    foundation_markdown  foundation.md
    ircce                the iRCCE group: sections, tests, jobs, targets, document
    ircce_markdown       ircce.md
    ab                   the A/B group: this tree's foundation rows against a baseline revision
    ab_markdown          ab.md
    session              one whole run, from building to the written files
"""
