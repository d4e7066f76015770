/*
 * The program each layer library is linked into, alone with the layers
 * it may call (meson.build's "layers"): a call from a layer to one above
 * it leaves the symbol undefined here, and the build fails.
 */
int main(void)
{
    return 0;
}
