"""The glue to warehouse/reports/paper.py: a report that has a runs x measures paper table prints it as
LaTeX or Markdown the same way, whichever report it is."""
from __future__ import annotations


class PaperTables:
    """to_latex() / to_markdown() of the paper table a subclass builds in paper_table()."""

    def paper_table(self):
        raise NotImplementedError

    def to_latex(self, label: str = "tab:irw") -> str:
        """The paper table as LaTeX (booktabs): best in bold, significance letters, a caption."""
        from warehouse.reports import paper

        return paper.to_latex(self.paper_table(), label)

    def to_markdown(self) -> str:
        """The paper table as GitHub Markdown."""
        from warehouse.reports import paper

        return paper.to_markdown(self.paper_table())
