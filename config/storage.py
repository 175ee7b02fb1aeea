"""Static files for production: hashed names (cached for ever by whitenoise), with the
table's ES module imports rewritten to those names too."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Django rewrites `import ... from "./x.js"` (and `import("./x.js")`) in JavaScript
    only when asked to: the table's modules (static/table/) then import each other by their
    hashed names, so a browser never runs one deploy's module with another's."""

    support_js_module_import_aggregation = True
