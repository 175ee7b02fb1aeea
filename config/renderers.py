"""DRF renderers under the site's Content-Security-Policy (config.security has the rest)."""

from rest_framework import renderers


class BrowsableAPIRenderer(renderers.BrowsableAPIRenderer):
    """DRF's HTML pages lay out a few buttons with style="" attributes: on these pages only,
    the policy lets style attributes apply (`style-src-attr`, which never covers <style>
    elements or scripts)."""

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None:
            response._csp_update = {"style-src-attr": ["'unsafe-inline'"]}
        return super().render(data, accepted_media_type, renderer_context)
