#!/usr/bin/env python
# vim: set fileencoding=shift_jis :
s = "あ"
