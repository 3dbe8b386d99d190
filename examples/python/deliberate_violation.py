"""A client bug the fake catches: a page number of 0, not declared as expected. Not collected with
the suite (the name does not start with test_); test_violation_fails_the_test.py runs it and
checks that the violation fails this test, named as its failure."""


def test_reads_the_first_page(client):
    # The bug: the API's pages start at 1. The client gets a 404 and the fake records a violation.
    try:
        client.list_page(0)
    except Exception:
        pass
