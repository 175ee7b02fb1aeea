"""The one error type for rule violations, shaped for an API to pass straight through."""


class IllegalAction(Exception):
    """An action the rules do not allow now; the game state is left exactly as it was.

    ``code`` is a stable snake_case reason for programs, ``message`` a sentence for people.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
