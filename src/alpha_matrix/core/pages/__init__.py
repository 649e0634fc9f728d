"""Report pages: content blocks rendered to Markdown and HTML, and the plots they show (shared by every report)."""
