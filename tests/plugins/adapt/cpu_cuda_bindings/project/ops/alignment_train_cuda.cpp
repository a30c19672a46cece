int base() { return 0; }
