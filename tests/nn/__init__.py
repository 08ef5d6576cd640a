"""Tests of fnet.nn."""
